/** The web UI's one stylesheet: plain, readable on a phone (single column below 40rem). */
export const STYLESHEET = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f6f8fa}
a{color:#0b5cad}
.top{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center;padding:.6rem 1rem;background:#24292f;color:#fff}
.top a{color:#fff;text-decoration:none}.top .brand{font-weight:600}
.top nav{display:flex;flex-wrap:wrap;gap:1rem;align-items:center}
.top button{background:none;border:1px solid #8c959f;color:#fff;border-radius:4px;padding:.1rem .5rem;cursor:pointer}
form.inline{display:inline}
main{max-width:70rem;margin:0 auto;padding:1rem}
h1{font-size:1.4rem;margin:.3rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
.crumbs{font-size:.9rem;color:#57606a;overflow-wrap:anywhere}
.card{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:.8rem 1rem;margin:0 0 1rem}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid #d0d7de}
th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid #eaeef2;vertical-align:top;overflow-wrap:anywhere}
th{background:#f6f8fa;font-weight:600}
dl.fields{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0}
dl.fields dt{font-weight:600;color:#57606a}dl.fields dd{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
ul.tree,ul.tree ul{list-style:none;margin:0;padding-left:1.1rem}ul.tree{padding-left:0}
ul.tree li{margin:.15rem 0}
ul.attachments{list-style:none;margin:0;padding:0}ul.attachments li{margin:.15rem 0}
img.attachment{max-width:16rem;max-height:10rem;border:1px solid #d0d7de;display:block}
.count{display:inline-block;min-width:1.6rem;padding:0 .4rem;border-radius:1rem;background:#eaeef2;color:#1f2328;font-size:.8rem;text-align:center}
ol.steps{padding-left:1.4rem}ol.steps li{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:.5rem .8rem;margin:0 0 .5rem}
ol.steps li.from-group{border-left:4px solid #8250df}
.step-group-mark{display:inline-block;font-size:.8rem;color:#8250df;font-weight:600;margin-bottom:.2rem}
.pre{white-space:pre-wrap;overflow-wrap:anywhere}
.muted{color:#57606a}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:1rem;font-size:.8rem;font-weight:600;color:#fff;background:#6e7781}
.st-passed{background:#1a7f37}.st-failed{background:#cf222e}.st-blocked{background:#bc4c00}.st-skipped{background:#6e7781}
.st-retest{background:#8250df}.st-in-progress{background:#0969da}.st-untested,.st-none{background:#afb8c1;color:#1f2328}
.st-status-completed{background:#1a7f37}.st-status-in-progress{background:#0969da}.st-status-created{background:#afb8c1;color:#1f2328}
.st-success{background:#1a7f37}.st-failure{background:#cf222e}.st-queued{background:#afb8c1;color:#1f2328}
.results{display:inline-flex;vertical-align:top;flex-wrap:wrap;gap:.3rem;margin:0;padding:0;list-style:none}
.totals{display:flex;flex-wrap:wrap;gap:.4rem;margin:0 0 1rem;padding:0;list-style:none}
.pager{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;margin:1rem 0}
.error{background:#ffebe9;border:1px solid #ff8182;border-radius:6px;padding:.5rem .8rem}
form.key label{display:block;font-weight:600;margin-bottom:.3rem}
form.key input{width:100%;max-width:28rem;padding:.4rem;font:inherit;border:1px solid #8c959f;border-radius:4px}
form.key button{margin-top:.6rem;padding:.4rem 1rem;font:inherit;border-radius:4px;border:1px solid #1a7f37;background:#1f883d;color:#fff;cursor:pointer}
@media (max-width:40rem){
  main{padding:.6rem}
  dl.fields{grid-template-columns:1fr}dl.fields dt{margin-top:.4rem}
  table.wide thead{display:none}
  table.wide tr{display:block;border-bottom:1px solid #d0d7de;padding:.3rem 0}
  table.wide td{display:block;border:0;padding:.1rem .6rem}
  table.wide td::before{content:attr(data-label);display:inline-block;min-width:5.5rem;margin-right:.5rem;font-weight:600;color:#57606a;white-space:normal}
}
`;

/** The pages' icon (linked from each page; `/favicon.ico` answers 404). */
export const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#24292f"/><path d="M4 8.5l2.5 2.5L12 5" fill="none" stroke="#3fb950" stroke-width="2"/></svg>
`;
