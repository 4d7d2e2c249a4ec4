// The course website (make site): pictures open full size on a click, and the search page
// says why it cannot show results when the site is opened as a file. Also the accessibility
// mends the theme needs (WCAG 2.1 AA, issue 34): the sidebar's expand toggles get a name, the
// search button's name is its visible text, and Chinese words on an English page are marked
// lang="zh-CN" (so a screen reader reads them in Chinese).
const COURSE_ZH = () => (document.documentElement.lang || "").startsWith("zh");

function nameToggles() {
  // the sidebar's <summary> holds only a chevron icon: name it after the section it opens
  for (const summary of document.querySelectorAll("nav summary, .bd-sidebar summary")) {
    if (summary.textContent.trim() || summary.hasAttribute("aria-label")) {
      continue;
    }
    const link = summary.closest("li")?.querySelector(":scope > a");
    const section = link ? link.textContent.trim() : "";
    const label = COURSE_ZH() ? `展开或收起：${section}` : `Expand or collapse: ${section}`;
    summary.setAttribute("aria-label", label);
  }
}

function matchSearchLabel() {
  // WCAG 2.5.3: the accessible name starts with the words on the button ("Search")
  for (const button of document.querySelectorAll("button.search-button__button, .search-button-field")) {
    const visible = button.innerText.replace(/\s+/g, " ").trim();
    if (visible) {
      button.setAttribute("aria-label", visible);
      button.removeAttribute("title");
    }
  }
}

const CJK_RUN = /[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]+(?:[\s\u3000-\u303f\u3400-\u9fff\uff00-\uffef]*[\u3400-\u9fff\uff00-\uffef])?/g;

function markChinese() {
  // on an English page, each run of Chinese text in its own <span lang="zh-CN"> (WCAG 3.1.2)
  if (COURSE_ZH()) {
    return;
  }
  const root = document.querySelector("main") || document.body;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const found = [];
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (CJK_RUN.test(node.nodeValue) && !node.parentElement.closest("[lang|=zh], script, style")) {
      found.push(node);
    }
    CJK_RUN.lastIndex = 0;
  }
  for (const node of found) {
    const text = node.nodeValue;
    const pieces = document.createDocumentFragment();
    let last = 0;
    for (const match of text.matchAll(CJK_RUN)) {
      pieces.append(text.slice(last, match.index));
      const span = document.createElement("span");
      span.lang = "zh-CN";
      span.textContent = match[0];
      pieces.append(span);
      last = match.index + match[0].length;
    }
    pieces.append(text.slice(last));
    node.replaceWith(pieces);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  nameToggles();
  matchSearchLabel();
  markChinese();
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
