/// The preview's pages as Mustache templates, compiled into the tool so the page works wherever the
/// binary goes, offline. `{{value}}` is HTML-escaped; nothing here uses the unescaped `{{{…}}}`.
enum PreviewTemplates {
    static let all: [String: String] = ["head": head, "pricing": pricing, "index": index, "product": product]

    static let head = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>{{title}}</title>
    <link rel="stylesheet" href="/static/preview.css">
    <script src="/static/preview.js" defer></script>
    </head>
    """

    /// Price (the discounted one first, the original struck through) and stock, on a card and a page.
    static let pricing = """
    <span class="price">{{#sale}}<span class="sale">{{sale}}</span> <s class="original">{{price}}</s>{{/sale}}{{^sale}}{{price}}{{/sale}}</span>
    <span class="stock{{#soldOut}} sold-out{{/soldOut}}">{{stock}}</span>
    """

    static let index = """
    {{> head}}
    <body class="catalogue">
    <header class="bar">
      <h1>{{title}}</h1>
      <nav class="switch" aria-label="View">
        <a href="/?view=list"{{#list}} aria-current="page"{{/list}}>List</a>
        <a href="/?view=grid"{{#grid}} aria-current="page"{{/grid}}>Grid</a>
      </nav>
    </header>
    <main>
    <p class="summary">{{summary}}</p>
    {{#warnings}}<p class="warning">{{.}}</p>
    {{/warnings}}
    <ul class="products {{#list}}list{{/list}}{{#grid}}grid{{/grid}}">
    {{#products}}
      <li class="product" data-folder="{{folder}}">
        <a href="{{link}}">
          {{#thumbnail}}<img class="thumb" src="{{src}}" srcset="{{srcset}}" width="{{size}}" height="{{size}}" alt="">{{/thumbnail}}
          {{^thumbnail}}<span class="thumb none">no photo</span>{{/thumbnail}}
          <span class="info">
            <span class="name">{{name}}</span>
            {{#pricing}}{{> pricing}}{{/pricing}}
            {{#issues}}<span class="issues">{{issues}}</span>{{/issues}}
            {{#state}}<span class="state {{stateKind}}">{{state}}</span>{{/state}}
          </span>
        </a>
      </li>
    {{/products}}
    </ul>
    </main>
    </body>
    </html>
    """

    static let product = """
    {{> head}}
    <body class="product-page" data-folder="{{folder}}">
    <header class="bar">
      <a class="back" href="/">← All products</a>
      <h1>{{name}}</h1>
    </header>
    <main>
    <section class="fields">
      <p class="pricing">{{#pricing}}{{> pricing}}{{/pricing}}</p>
      {{#description}}<p class="description">{{description}}</p>{{/description}}
      <p class="folder">Folder: {{folder}}</p>
    </section>
    {{#publish}}
    <section class="publish {{kind}}">
      <h2>Publish</h2>
      <p>{{summary}}</p>
      {{#hasChanges}}<ul class="changes">{{#changes}}<li class="change"><b>{{field}}</b>: {{from}} → {{to}}</li>{{/changes}}</ul>{{/hasChanges}}
    </section>
    {{/publish}}
    {{#hasProblems}}
    <section class="problems">
      <h2>To fix before publishing</h2>
      <ul>{{#problems}}<li class="problem">{{.}}</li>{{/problems}}</ul>
    </section>
    {{/hasProblems}}
    {{#hasFailures}}
    <section class="failures">
      <h2>Photos that failed</h2>
      <ul>{{#failures}}<li class="failure"><b>{{file}}</b>: {{reason}}</li>{{/failures}}</ul>
    </section>
    {{/hasFailures}}
    <ol class="photos">
    {{#photos}}
      <li class="photo" id="photo-{{number}}">
        <figure>
          <img class="prepared" src="{{preparedURL}}" width="{{width}}" height="{{height}}" alt="{{source}}, prepared">
          <figcaption>
            <span class="source">{{number}}. {{source}}</span>
            <span class="dims">{{width}}×{{height}} px</span>
            <span class="bytes{{#overBudget}} over{{/overBudget}}">{{bytes}} of {{limit}} bytes ({{percent}}%)</span>
            <span class="quality">{{quality}}</span>
            <span class="encodes">{{encodes}}</span>
            {{#warnings}}<span class="warning">{{.}}</span>{{/warnings}}
          </figcaption>
        </figure>
        <details class="compare">
          <summary>Compare with the original at the same scale</summary>
          <div class="viewport">
            <div class="stack" data-width="{{width}}" data-height="{{height}}">
              <img class="prepared" loading="lazy" src="{{preparedURL}}" width="{{width}}" height="{{height}}" alt="prepared">
              <img class="original" loading="lazy" src="{{originalURL}}" width="{{width}}" height="{{height}}" alt="original">
            </div>
          </div>
          <label>Original ← → prepared <input class="split" type="range" min="0" max="100" value="50"></label>
        </details>
      </li>
    {{/photos}}
    </ol>
    </main>
    </body>
    </html>
    """
}
