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
    };
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
      result.smallestPicture = Math.min(result.smallestPicture, Math.round(smallest * 10) / 10);
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

  async measureAll() {
    const Reveal = window.courseReveal;
    const slides = [];
    const total = Reveal.getTotalSlides();
    // No slide transitions: a slide on its way in is drawn off its place.
    Reveal.configure({ transition: "none", backgroundTransition: "none" });
    Reveal.slide(0, 0, 0);
    for (let i = 0; i < total; i++) {
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
      slides.push(this.measureCurrent());
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
