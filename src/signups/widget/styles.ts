/** The widget's stylesheet, adopted by its shadow root (a constructable sheet: strict CSPs allow it). */
export const CSS = `
:host{display:block;color:var(--cs-fg,var(--cs-t-fg,#1f2937))}
:host([hidden]){display:none}
*{box-sizing:border-box}
[hidden]{display:none!important}
.cs{max-width:var(--cs-max-width,440px);margin:0 auto;padding:20px 16px;background:var(--cs-bg,var(--cs-t-bg,#fff));border-radius:var(--cs-radius,var(--cs-t-radius,16px));box-shadow:0 1px 4px rgba(0,0,0,.15);font-family:var(--cs-font,var(--cs-t-font,system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif));line-height:1.45;overflow-wrap:anywhere}
h2{font-size:1.3rem;margin:0 0 4px}
.desc{margin:0 0 12px;color:var(--cs-muted,var(--cs-t-muted,#4b5563))}
label{display:block;font-weight:600;margin:10px 0 4px}
input[type=email],input[type=text],input[type=date],select{width:100%;font:inherit;padding:10px 12px;min-height:44px;border:1px solid #6b7280;border-radius:8px;background:#fff;color:#111}
.consent{display:flex;gap:8px;align-items:flex-start;font-weight:400}
.consent input{margin-top:4px;width:20px;height:20px;flex:none}
button,a.btn{font:inherit;font-weight:700;border:0;border-radius:999px;padding:10px 24px;min-height:44px;cursor:pointer;background:var(--cs-accent,var(--cs-t-accent,#4338ca));color:var(--cs-accent-text,var(--cs-t-accent-text,#fff));margin-top:14px;display:inline-flex;align-items:center;text-decoration:none}
button.link{background:none;color:var(--cs-accent,var(--cs-t-accent,#4338ca));padding:4px 0;min-height:auto;text-decoration:underline;font-weight:600}
button[aria-disabled=true]{opacity:.6;cursor:not-allowed}
button:focus-visible,input:focus-visible,select:focus-visible,a:focus-visible{outline:3px solid var(--cs-focus,#b45309);outline-offset:2px}
.msg{min-height:1.4em;margin:10px 0 0;font-weight:600}
.err{color:var(--cs-err,var(--cs-t-err,#b91c1c))}
.big{font-size:2rem;line-height:1.15;font-weight:800;margin:4px 0}
.behind{margin:0 0 8px;color:var(--cs-muted,var(--cs-t-muted,#4b5563));font-weight:600}
.tiles{display:grid;grid-template-columns:1fr 1fr;gap:8px;margin:12px 0}
.tile{padding:10px 12px;border-radius:12px;border:1px solid #d1d5db}
.tile dt{font-size:.85rem;color:var(--cs-muted,var(--cs-t-muted,#4b5563))}
.tile dd{margin:0;font-size:1.5rem;font-weight:800}
.share{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin-top:8px}
.share input{flex:1 1 200px}
.share button,.share a.btn{margin-top:0}
.share a.btn{padding:10px 16px;gap:8px;background:var(--cs-ch,var(--cs-accent,var(--cs-t-accent,#4338ca)));color:var(--cs-ch-text,var(--cs-accent-text,var(--cs-t-accent-text,#fff)))}
.icon{flex:none}
.qr{margin-top:10px}
.qr summary{cursor:pointer;font-weight:600;padding:12px 0}
.qr-img svg{display:block;width:180px;height:180px;margin:6px 0}
.qr code{font-size:.85rem}
.note{color:var(--cs-muted,var(--cs-t-muted,#4b5563));font-size:.9rem}
h3{font-size:1rem;margin:14px 0 4px}
.rewards{margin:0;padding-left:20px}
code{font-weight:700;overflow-wrap:anywhere}
.next{color:var(--cs-muted,var(--cs-t-muted,#4b5563))}
.ladder,.actions{margin:0;padding-left:20px}
.ladder li,.actions li{margin:8px 0}
.ladder li.unlocked{padding:8px 10px;border-radius:10px;background:rgba(22,101,52,.08)}
.ladder .desc{display:block;color:var(--cs-muted,var(--cs-t-muted,#4b5563))}
@media (prefers-reduced-motion:no-preference){.ladder li.fresh{animation:cs-unlock .9s ease-out 1}}
@keyframes cs-unlock{0%{transform:scale(.96);box-shadow:0 0 0 0 rgba(22,101,52,.45)}60%{transform:scale(1.02)}100%{transform:none;box-shadow:0 0 0 12px rgba(22,101,52,0)}}
.actions{list-style:none;padding:0}
.act{display:block}
.dot{display:inline-block;width:10px;height:10px;border-radius:50%;background:#6b7280;margin-right:8px}
.done{font-weight:700;color:var(--cs-ok,var(--cs-t-ok,#166534))}
progress{display:block;width:100%;height:10px;margin:4px 0;accent-color:var(--cs-accent,var(--cs-t-accent,#4338ca))}
.board{width:100%;border-collapse:collapse;margin-top:14px}
.board caption{text-align:left;font-weight:700;margin-bottom:4px}
.board th,.board td{text-align:left;padding:6px 4px;border-bottom:1px solid #e5e7eb}
.board tr.me{font-weight:700}
`;
