// The course website (make site): pictures open full size on a click, and the search page
// says why it cannot show results when the site is opened as a file.
document.addEventListener("DOMContentLoaded", () => {
  for (const img of document.querySelectorAll(".cell_output img, .output img")) {
    if (img.closest("a")) {
      continue;
    }
    const link = document.createElement("a");
    link.href = img.getAttribute("src");
    link.target = "_blank";
    link.className = "course-zoom";
    link.title = document.documentElement.lang.startsWith("zh")
      ? "点击在新标签页中以原始大小打开"
      : "Open the picture full size in a new tab";
    img.replaceWith(link);
    link.appendChild(img);
  }
  if (window.location.protocol === "file:" && document.getElementById("search-results")) {
    const note = document.createElement("p");
    note.className = "course-file-note";
    note.textContent =
      "Search needs the site to be served: run `python -m http.server -d build/site` and " +
      "open http://127.0.0.1:8000/search.html (a page opened as a file cannot read the " +
      "search index). 搜索需要通过本地服务器打开网站：运行 `python -m http.server -d build/site`。";
    document.getElementById("search-results").before(note);
  }
});
