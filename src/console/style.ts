// The console's one stylesheet, served from /console/console.css (the CSP
// allows styles from the service only). Logical properties throughout, so
// that the same rules lay out English left to right and Arabic right to
// left; tables turn into stacked cards on narrow screens, so that a 390 px
// phone never scrolls sideways.
export const CONSOLE_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{font-family:system-ui,"Segoe UI",Roboto,"Noto Sans","Noto Sans Arabic","DejaVu Sans",sans-serif;font-size:100%;line-height:1.5;color:#0b0c0c;background:#f3f2f1}
body{margin:0}
a{color:#1d4f91}
a:focus,button:focus,input:focus,select:focus{outline:3px solid #ffbf47;outline-offset:0}
.skip{position:absolute;inset-inline-start:-999px}
.skip:focus{inset-inline-start:.5rem;top:.5rem;background:#fff;padding:.5rem;z-index:2}
.top{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.5rem;padding:.75rem 1rem;background:#0b0c0c;color:#fff}
.top a{color:#fff}
.brand a{font-weight:700;text-decoration:none}
.brand span{opacity:.8;margin-inline-start:.5rem}
.top nav ul{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;margin:0;padding:0}
.top nav a[aria-current="page"]{text-decoration-thickness:3px}
.tools{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;margin-inline-start:auto}
.menu{flex:1 1 20rem;min-width:0}
.menu>summary{display:inline-flex;align-items:center;justify-content:center;min-height:44px;min-width:44px;padding:0 .75rem;border:2px solid #fff;cursor:pointer;font-weight:700;list-style:none}
.menu>summary::-webkit-details-marker{display:none}
.menu>summary::after{content:"";display:inline-block;margin-inline-start:.5rem;border:.35rem solid transparent;border-top-color:currentColor;border-bottom:0}
.menu[open]>summary::after{transform:rotate(180deg)}
.menu-body{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.5rem}
@supports selector(::details-content){
  @media (min-width:40.01rem){
    .menu>summary{display:none}
    .menu::details-content{content-visibility:visible;display:contents}
  }
}
.sign-out{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem}
button.link{background:none;border:0;padding:0;color:#fff;text-decoration:underline;font:inherit;cursor:pointer;box-shadow:none}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.75rem;margin:.5rem 0 1rem}
h2{font-size:1.3rem;margin:1.75rem 0 .75rem}
h3{font-size:1.1rem;margin:0 0 .5rem}
.field{margin-block-end:1rem}
label{display:block;font-weight:700;margin-block-end:.25rem}
.hint{margin:0 0 .25rem;color:#505a5f}
label.inline{display:inline;font-weight:400}
input[type=text],input[type=password],input[type=search],select{font:inherit;padding:.4rem .5rem;border:2px solid #0b0c0c;border-radius:0;background:#fff;max-width:100%}
input[type=text],input[type=password],input[type=search]{width:100%}
input[aria-invalid=true],select[aria-invalid=true]{border-color:#d4351c}
form.narrow{max-width:24rem}
.apply{margin-block:1.5rem}
progress{inline-size:100%;max-inline-size:24rem;block-size:1rem}
button,.button{display:inline-block;font:inherit;font-weight:600;padding:.45rem .9rem;border:0;border-radius:0;background:#00703c;color:#fff;cursor:pointer;text-decoration:none;box-shadow:0 2px 0 #002d18}
button.secondary,.button.secondary{background:#f3f2f1;color:#0b0c0c;box-shadow:0 2px 0 #929191;border:1px solid #b1b4b6}
button.warning,.button.warning{background:#d4351c;color:#fff;box-shadow:0 2px 0 #55150b}
form.inline{display:inline-flex;flex-wrap:wrap;gap:.25rem;align-items:center;margin-inline-end:.5rem;margin-block-end:.25rem}
.error-summary{border:4px solid #d4351c;padding:1rem;margin-block-end:1.5rem;background:#fff}
.error-summary h2{margin-top:0}
.error-summary a{color:#d4351c;font-weight:700}
.notice{border-inline-start:6px solid #00703c;background:#fff;padding:.5rem 1rem;margin-block-end:1rem}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:1rem}
.card{background:#fff;padding:1rem;border-top:4px solid #1d70b8}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(6.5rem,1fr));gap:.5rem;margin:0}
.stat{padding:.25rem 0}
.stat dt{color:#505a5f;font-size:.9rem}
.stat dd{margin:0;font-size:1.6rem;font-weight:700;font-variant-numeric:tabular-nums}
.alert{color:#d4351c}
.retrying{color:#8a4100}
.given-up{color:#b3261e}
span.retrying:not(.key)::before{content:"↻ "}
span.given-up:not(.key)::before{content:"✕ "}
.stat.on.retrying{border-inline-start:6px solid #b35900;padding-inline-start:.5rem;background:#fff4e5}
.stat.on.given-up{border-inline-start:6px solid #d4351c;padding-inline-start:.5rem;background:#fdf0ee}
.stat:not(.on){color:inherit}
.due.on{border-inline-start:6px solid #d4351c;color:#b3261e}
.ranges ul{display:flex;flex-wrap:wrap;gap:.5rem;list-style:none;margin:0 0 .5rem;padding:0}
.ranges a{display:inline-flex;align-items:center;min-height:44px;padding:0 .75rem;background:#fff;border:1px solid #b1b4b6}
.ranges a[aria-current="page"]{font-weight:700;border:2px solid #0b0c0c;text-decoration:none}
.funnel-bar{display:block}
.funnel-bar rect.queued{fill:#b1b4b6}
.funnel-bar rect.sent{fill:#00703c}
.funnel-bar rect.read{fill:#1d70b8}
.ok{color:#00703c;font-weight:700}
.due{font-size:1.1rem;background:#fff;padding:.5rem 1rem;margin:1rem 0}
.muted{color:#505a5f}
.who{display:inline-block;margin-block-start:.25rem;font-size:.95rem}
.who strong{font-weight:700}
.sent-text{white-space:pre-wrap}
.field.checkbox{display:flex;gap:.5rem;align-items:flex-start;margin:1rem 0}
.field.checkbox input{width:1.5rem;height:1.5rem;margin:0;flex:none}
.code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.9rem;overflow-wrap:anywhere}
.code[dir=ltr]{white-space:nowrap;overflow-wrap:normal}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:start;padding:.5rem;border-bottom:1px solid #b1b4b6;vertical-align:top}
th.number,td.number{text-align:end;font-variant-numeric:tabular-nums}
.chart{margin:1.5rem 0;background:#fff;padding:1rem}
.chart figcaption{font-weight:700;margin-block-end:.5rem}
.chart svg{display:block;width:100%;height:auto;direction:ltr}
.chart .grid{stroke:#d8d8d8;stroke-width:1}
.chart .axis{font-size:11px;fill:#505a5f}
.chart rect.sent,.key.sent{fill:#00703c;background:#00703c}
.chart rect.retrying,.key.retrying{fill:#f47738;background:#f47738}
.chart rect.dead,.key.dead{fill:#d4351c;background:#d4351c}
.chart .plot{position:relative}
.chart svg.bar-links{position:absolute;inset:0;height:100%}
.chart .bar-links rect{fill:transparent}
.chart .bar-links>:hover rect{fill:rgba(11,12,12,.08)}
.periods>summary{cursor:pointer;font-weight:700;color:#1d4f91;text-decoration:underline;margin-block-start:.75rem}
.legend{margin:.5rem 0 0}
.key{display:inline-block;width:.9rem;height:.9rem;margin-inline:.75rem .25rem;vertical-align:middle}
.summary{margin:.25rem 0 0;color:#505a5f}
.summary-list{margin:0 0 1rem;background:#fff;padding:.5rem 1rem}
.summary-list div{display:grid;grid-template-columns:minmax(8rem,14rem) 1fr;gap:.5rem;padding:.4rem 0;border-bottom:1px solid #d8d8d8}
.summary-list dt{font-weight:700}
.summary-list dd{margin:0;overflow-wrap:anywhere}
.token{display:block;word-break:break-all}
.search-row{display:flex;gap:.5rem}
.search-row input{flex:1}
.pager{display:flex;flex-wrap:wrap;gap:1rem;align-items:center}
.tabs{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;padding:0;margin:0 0 1rem}
.tabs a[aria-current="page"],.errors a[aria-current="true"]{font-weight:700;text-decoration-thickness:3px}
.errors{padding-inline-start:1.25rem}
.errors li{margin-block-end:.35rem}
.filters{display:grid;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));gap:0 1rem;align-items:end;margin-block-end:1rem}
.filters button{margin-block-end:1rem;justify-self:start}
.message-filters{margin-block-end:1rem}
.message-filters details{background:#fff;padding:.5rem 1rem;margin-block-end:1rem}
.message-filters summary{cursor:pointer;font-weight:700;color:#1d4f91;text-decoration:underline}
.message-filters .filters{margin-block:1rem 0}
.message-filters .actions{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;margin-block-end:.5rem}
.stat dd a{color:inherit}
time{white-space:nowrap}
input[type=datetime-local],input[type=date]{font:inherit;padding:.35rem .5rem;border:2px solid #0b0c0c;border-radius:0;background:#fff;max-width:100%;width:100%}
.visually-hidden{position:absolute!important;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:40rem){
  .top{flex-wrap:nowrap;gap:.5rem;padding:.25rem .75rem}
  .brand{flex:1 1 auto;min-width:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
  .brand span{display:none}
  .top{position:relative}
  .menu{flex:0 0 auto}
  .menu-body{display:block;position:absolute;inset-inline:0;top:100%;z-index:3;background:#0b0c0c;padding:.25rem .75rem .75rem;box-shadow:0 4px 8px rgba(0,0,0,.3)}
  .top nav ul{flex-direction:column;gap:0}
  .tools{margin-block-start:.5rem}
  a,button,input,select,summary,textarea{min-height:44px;min-width:44px}
  a,.button{display:inline-flex;align-items:center}
  button.link{padding:0 .25rem}
  input[type=checkbox],input[type=radio]{width:44px;height:44px;margin:0}
  main{padding:.75rem}
  time{white-space:normal}
  h1{font-size:1.4rem}
  table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
  table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
  table.stack tr{border-bottom:2px solid #b1b4b6;padding:.25rem 0}
  table.stack td{border:0;padding:.25rem .5rem;text-align:start}
  table.stack td::before{content:attr(data-label);display:block;font-weight:700;font-size:.85rem;color:#505a5f}
  .tools{margin-inline-start:0}
  .summary-list div{grid-template-columns:1fr}
  table.messages td{display:grid;grid-template-columns:minmax(6rem,35%) 1fr;gap:.5rem;align-items:baseline}
  table.messages td::before{display:inline;font-size:.85rem}
  table.messages td>*{grid-column:2;justify-self:start}
  .chart .axis{font-size:22px}
  .chart .axis.odd{display:none}
}
`;
