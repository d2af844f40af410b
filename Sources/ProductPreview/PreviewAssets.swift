/// The preview's stylesheet and its one small script, served from the tool itself: no fonts, no
/// CDNs, so the page works offline. System fonts only, with Korean faces named first among them.
enum PreviewAssets {
    static let css = """
    :root { --ink: #1d1d1f; --muted: #6e6e73; --line: #d2d2d7; --accent: #0066cc; --bad: #c00; --warn: #9a6700; --good: #1a7f37;
      font-family: system-ui, -apple-system, "Apple SD Gothic Neo", "Noto Sans CJK KR", "NanumGothic", "Malgun Gothic", sans-serif;
      color: var(--ink); background: #fff; }
    body { margin: 0; }
    .bar { display: flex; align-items: center; gap: 1rem; flex-wrap: wrap; padding: .75rem 1rem; border-bottom: 1px solid var(--line); }
    .bar h1 { font-size: 1.25rem; margin: 0; flex: 1; overflow-wrap: anywhere; }
    main { padding: 1rem; max-width: 72rem; margin: 0 auto; }
    a { color: var(--accent); }
    .switch a { padding: .3rem .8rem; border: 1px solid var(--line); border-radius: 1rem; text-decoration: none; }
    .switch a[aria-current] { background: var(--ink); color: #fff; }
    .summary { color: var(--muted); }
    .warning { color: var(--warn); }
    .products { list-style: none; margin: 0; padding: 0; }
    .products a { color: inherit; text-decoration: none; display: flex; gap: .75rem; }
    .products.list .product { border-bottom: 1px solid var(--line); padding: .5rem 0; }
    .products.list .thumb { width: 80px; height: 80px; flex: none; }
    .products.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 1rem; }
    .products.grid a { flex-direction: column; }
    .products.grid .thumb { width: 200px; height: 200px; max-width: 100%; height: auto; aspect-ratio: 1; }
    .thumb { object-fit: cover; border-radius: 6px; background: #f5f5f7; }
    .thumb.none { display: grid; place-items: center; color: var(--muted); font-size: .8rem; width: 80px; height: 80px; }
    .info { display: flex; flex-direction: column; gap: .15rem; min-width: 0; }
    .name { font-weight: 600; overflow-wrap: anywhere; }
    .sale { color: var(--bad); font-weight: 600; }
    .original { color: var(--muted); }
    .stock { color: var(--muted); font-size: .9rem; }
    .sold-out { color: var(--bad); }
    .issues { color: var(--warn); font-size: .85rem; }
    .state { font-size: .85rem; }
    .state.new, .publish.new { color: var(--accent); }
    .state.changed, .publish.changed, .state.pending, .publish.pending { color: var(--warn); }
    .state.unchanged, .publish.unchanged { color: var(--good); }
    .fields p { margin: .25rem 0; }
    .pricing { display: flex; flex-direction: column; gap: .25rem; }
    .folder { color: var(--muted); font-size: .85rem; }
    .problems, .failures { border-left: 4px solid var(--bad); padding-left: .75rem; }
    .photos { list-style: none; padding: 0; }
    .photo { margin: 1.5rem 0; }
    .photo figure { margin: 0; }
    .photo img.prepared { max-width: 100%; height: auto; display: block; }
    figcaption { display: flex; flex-wrap: wrap; gap: .25rem 1rem; font-size: .9rem; color: var(--muted); padding: .4rem 0; }
    figcaption .source { color: var(--ink); font-weight: 600; }
    .bytes.over { color: var(--bad); }
    .compare .viewport { overflow: auto; max-height: 70vh; border: 1px solid var(--line); }
    .compare .stack { position: relative; }
    .compare .stack img { display: block; max-width: none; }
    .compare .stack img.original { position: absolute; top: 0; left: 0; clip-path: inset(0 50% 0 0); }
    @media (max-width: 600px) {
      main { padding: .5rem; }
      .products.grid { grid-template-columns: repeat(2, 1fr); gap: .5rem; }
      .products.grid .thumb { width: 100%; }
    }
    """

    /// Moves the comparison's split, and notes on each image what the browser chose to load: its size
    /// in CSS pixels (a 3x image of 600 pixels is 200) and its URL.
    static let javascript = """
    document.querySelectorAll('details.compare').forEach(function (details) {
      var original = details.querySelector('img.original');
      var split = details.querySelector('input.split');
      split.addEventListener('input', function () {
        original.style.clipPath = 'inset(0 ' + (100 - split.value) + '% 0 0)';
      });
    });
    function noteLoaded(image) {
      if (!image.naturalWidth) return;
      image.dataset.loaded = image.naturalWidth + 'x' + image.naturalHeight;
      image.dataset.source = new URL(image.currentSrc).pathname;
    }
    document.querySelectorAll('img').forEach(function (image) {
      if (image.complete) noteLoaded(image); else image.addEventListener('load', function () { noteLoaded(image); });
    });
    """
}
