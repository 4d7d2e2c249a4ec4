// Measures a reveal.js deck of the course the way a projector shows it. Injected into the deck's
// page by tests/browser/test_classroom_in_browser.py (and scripts/measure_decks.py) once
// `window.courseReveal` is ready; `deckProbe.measureAll()` visits every slide with all its
// fragments shown and reports, per slide, what does not fit the screen.
//
// Sizes are screen pixels: CSS pixels times reveal.js's scale (1 at 1280x720 for the course's
// decks, which are laid out at 1280x720 with no margin).
window.deckProbe = {
  // Points to pixels: SVG sizes written by Graphviz are in points.
  PX_PER_PT: 4 / 3,

  frame() {
    return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  },

  // The smallest font size (in the picture's own units) and the viewBox width of an SVG text.
  svgFacts(svgText) {
    const doc = new DOMParser().parseFromString(svgText, "image/svg+xml");
    const svg = doc.documentElement;
    let smallest = Infinity;
    for (const text of doc.querySelectorAll("text")) {
      if (!text.textContent.trim()) {
        continue;
      }
      let node = text;
      let size = null;
      while (node && node.getAttribute && size === null) {
        size = node.getAttribute("font-size");
        node = node.parentNode;
      }
      smallest = Math.min(smallest, parseFloat(size || "14"));
    }
    const box = (svg.getAttribute("viewBox") || "").split(/[\s,]+/).map(parseFloat);
    let width = box.length === 4 ? box[2] : parseFloat(svg.getAttribute("width") || "0");
    // Graphviz scales the drawing inside the viewBox with transform="scale(s s)".
    const group = svg.querySelector("g[transform*='scale']");
    const scale = group ? parseFloat(/scale\(([\d.]+)/.exec(group.getAttribute("transform"))[1]) : 1;
    return { smallest: smallest * scale, width };
  },

  // Decoded SVG of an <img src="data:image/svg+xml;base64,..."> (null for other pictures).
  imgSvg(img) {
    const src = img.getAttribute("src") || "";
    const match = /^data:image\/svg\+xml;base64,(.*)$/.exec(src);
    if (match) {
      return new TextDecoder().decode(Uint8Array.from(atob(match[1]), (c) => c.charCodeAt(0)));
    }
    const plain = /^data:image\/svg\+xml(?:;charset=[^,]*)?,(.*)$/.exec(src);
    return plain ? decodeURIComponent(plain[1]) : null;
  },

  visible(el) {
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none" || +style.opacity === 0) {
      return false;
    }
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  },

  // The part of the screen an element can be seen in: the window, cut by every ancestor
  // that hides or scrolls what overflows it.
  clipOf(el) {
    let clip = { top: 0, left: 0, bottom: window.innerHeight, right: window.innerWidth };
    for (let node = el.parentElement; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (/(hidden|auto|scroll|clip)/.test(style.overflowX + style.overflowY)) {
        const box = node.getBoundingClientRect();
        clip = {
          top: Math.max(clip.top, box.top),
          left: Math.max(clip.left, box.left),
          bottom: Math.min(clip.bottom, box.bottom),
          right: Math.min(clip.right, box.right),
        };
      }
    }
    return clip;
  },

  // Everything measured on the slide shown now (its fragments all visible).
  measureCurrent() {
    const Reveal = window.courseReveal;
    const scale = Reveal.getScale();
    const slide = Reveal.getCurrentSlide();
    const indices = Reveal.getIndices();
    const result = {
      h: indices.h,
      v: indices.v,
      title: (Array.from(slide.querySelectorAll("h1, h2, h3")).find((h) => !h.closest("aside")) ||
        { textContent: "" }).textContent.trim(),
      height: Math.round(slide.scrollHeight * scale),
      notes: !!(slide.querySelector("aside.notes") &&
        slide.querySelector("aside.notes").textContent.trim()),
      smallestText: Infinity,
      smallestTextSample: "",
      smallestPicture: Infinity,
      pictures: 0,
      cutPictures: [],
      clippedCode: [],
      overflowRight: 0,
      shown: [], // pictures: {id, part, overview, unfit, whole, label}
      text: "",
      lines: 0,
      headings: 0,
      askPredict: false,
    };
    const notes = slide.querySelector("aside.notes");
    result.askPredict = !!(notes && /Ask before the key press|按键之前先问/.test(notes.textContent));
    result.headings = Array.from(slide.querySelectorAll("h1, h2, h3"))
      .filter((h) => !h.closest("aside") && this.visible(h)).length;
    const tolerance = 1;
    // Text: every visible text node outside the notes.
    const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!node.textContent.trim() || el.closest("aside.notes, svg, mjx-assistive-mml")) {
        continue;
      }
      if (!this.visible(el)) {
        continue;
      }
      const size = parseFloat(getComputedStyle(el).fontSize) * scale;
      if (size < result.smallestText) {
        result.smallestText = Math.round(size * 10) / 10;
        result.smallestTextSample = node.textContent.trim().slice(0, 40);
      }
      const range = document.createRange();
      range.selectNodeContents(node);
      const box = range.getBoundingClientRect();
      result.text += node.textContent + " ";
      result.lines += Math.max(1, Math.round(box.height / (parseFloat(getComputedStyle(el).lineHeight) || box.height || 1)));
      result.overflowRight = Math.max(result.overflowRight, Math.round(box.right - window.innerWidth));
    }
    // Pictures: <img> (SVG as data URL, or PNG) and inline <svg>.
    for (const pic of slide.querySelectorAll("img, svg")) {
      if (pic.closest("aside.notes, mjx-container") || (pic.tagName === "svg" && pic.parentElement.closest("svg"))) {
        continue;
      }
      if (!this.visible(pic)) {
        continue;
      }
      const box = pic.getBoundingClientRect();
      if (box.width < 30 || box.height < 30) {
        continue; // icons, the controls' arrows
      }
      result.pictures += 1;
      const clip = this.clipOf(pic);
      if (box.bottom > clip.bottom + tolerance || box.right > clip.right + tolerance ||
          box.top < clip.top - tolerance || box.left < clip.left - tolerance) {
        result.cutPictures.push({ top: Math.round(box.top), bottom: Math.round(box.bottom),
          right: Math.round(box.right), clipBottom: Math.round(clip.bottom) });
      }
      let smallest = Infinity;
      let root = pic;
      if (pic.tagName === "IMG") {
        const text = this.imgSvg(pic);
        root = text ? new DOMParser().parseFromString(text, "image/svg+xml").documentElement : null;
      }
      const cut = result.cutPictures.length > 0 &&
        result.cutPictures[result.cutPictures.length - 1].top === Math.round(box.top);
      const shown = root && root.getAttribute ? {
        id: root.getAttribute("data-course-picture") || "",
        part: root.getAttribute("data-course-part") || "",
        overview: root.getAttribute("data-course-overview") === "true",
        unfit: root.getAttribute("data-course-unfit") || "",
        whole: !cut,
        label: 0,
      } : null;
      if (pic.tagName === "IMG") {
        const svg = this.imgSvg(pic);
        if (svg) {
          const facts = this.svgFacts(svg);
          if (facts.width > 0 && facts.smallest < Infinity) {
            smallest = facts.smallest * (box.width / facts.width);
          }
        }
      } else {
        for (const text of pic.querySelectorAll("text")) {
          if (text.textContent.trim()) {
            const size = parseFloat(getComputedStyle(text).fontSize);
            const ctm = text.getScreenCTM();
            smallest = Math.min(smallest, size * (ctm ? Math.hypot(ctm.a, ctm.b) : 1));
          }
        }
      }
      const rounded = Math.round(smallest * 10) / 10;
      if (shown && shown.id) {
        shown.label = rounded;
        result.shown.push(shown);
      }
      if (!(shown && shown.overview)) {
        result.smallestPicture = Math.min(result.smallestPicture, rounded);
      }
    }
    // Code: a line wider than its box is cut off (or would need a scroll bar).
    for (const pre of slide.querySelectorAll("pre")) {
      if (pre.closest("aside.notes") || !this.visible(pre)) {
        continue;
      }
      if (pre.scrollWidth > pre.clientWidth + tolerance) {
        result.clippedCode.push(pre.textContent.split("\n").find((l) => l.length > 0).slice(0, 60));
      }
    }
    return result;
  },

  // How many outputs (text or picture) of the current slide are visible now.
  visibleOutputs() {
    const slide = window.courseReveal.getCurrentSlide();
    return Array.from(slide.querySelectorAll(".jp-OutputArea-output"))
      .filter((el) => !el.closest("aside.notes") && this.visible(el)).length;
  },

  // The Chinese characters the deck's pictures draw, and which of them the bundled font lacks:
  // each is drawn on a canvas in that font alone and compared with a character no font has
  // (the missing-glyph box). Also the <text> elements whose first font is another family.
  async cjkGlyphs() {
    const family = "Noto Sans SC";
    const chars = new Set();
    const notFirst = [];
    for (const text of document.querySelectorAll(".reveal .slides svg text")) {
      const cjk = text.textContent.match(/[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]/g);
      if (!cjk) {
        continue;
      }
      cjk.forEach((c) => chars.add(c));
      const first = getComputedStyle(text).fontFamily.split(",")[0].replace(/["']/g, "").trim();
      if (first !== family) {
        notFirst.push(text.textContent.slice(0, 30));
      }
    }
    const all = Array.from(chars);
    await document.fonts.load(`40px "${family}"`, all.join(""));
    const canvas = document.createElement("canvas");
    canvas.width = 64;
    canvas.height = 64;
    const ctx = canvas.getContext("2d", { willReadFrequently: true });
    const draw = (c) => {
      ctx.clearRect(0, 0, 64, 64);
      ctx.font = `40px "${family}"`;
      ctx.fillText(c, 8, 48);
      const data = ctx.getImageData(0, 0, 64, 64).data;
      let sum = 0;
      for (let i = 3; i < data.length; i += 4) {
        sum = (sum * 31 + data[i]) % 1000000007;
      }
      return sum;
    };
    const box = draw("\u{10FFFD}");
    const missing = all.filter((c) => draw(c) === box || draw(c) === 0);
    return { chars: all.length, missing, notFirst };
  },

  async measureAll() {
    const Reveal = window.courseReveal;
    const slides = [];
    const total = Reveal.getTotalSlides();
    // No slide transitions: a slide on its way in is drawn off its place.
    Reveal.configure({ transition: "none", backgroundTransition: "none" });
    Reveal.slide(0, 0, 0);
    for (let i = 0; i < total; i++) {
      // What the slide shows before any key press: the outputs a predict slide hides.
      await this.frame();
      const arrival = this.visibleOutputs();
      // Show every fragment of this slide, then measure.
      while (Reveal.nextFragment()) {
        /* keep going */
      }
      await this.frame();
      await Promise.all(Array.from(Reveal.getCurrentSlide().querySelectorAll("img"))
        .map((img) => (img.complete ? null : img.decode().catch(() => null))));
      if (window.MathJax && MathJax.typesetPromise) {
        await MathJax.typesetPromise([Reveal.getCurrentSlide()]).catch(() => null);
      }
      await this.frame();
      const measured = this.measureCurrent();
      measured.outputsOnArrival = arrival;
      measured.outputsShown = this.visibleOutputs();
      slides.push(measured);
      const before = JSON.stringify(Reveal.getIndices());
      Reveal.next();
      await this.frame();
      if (JSON.stringify(Reveal.getIndices()) === before) {
        break;
      }
    }
    return {
      total,
      width: window.innerWidth,
      height: window.innerHeight,
      scale: Reveal.getScale(),
      lang: document.documentElement.lang,
      slides,
    };
  },
};
