/** The widget's stylesheet (inside its shadow root, so the shop's CSS and ours never collide). */
export const CSS = `
:host{display:block;color:var(--iw-fg,#1f2937)}
:host([hidden]){display:none}
*{box-sizing:border-box}
[hidden]{display:none!important}
.iw{position:relative;max-width:var(--iw-max-width,420px);margin:0 auto;padding:20px 16px;background:var(--iw-bg,#fff);border-radius:var(--iw-radius,16px);box-shadow:0 1px 4px rgba(0,0,0,.15);text-align:center;font-family:var(--iw-font,system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif);line-height:1.4;overflow-wrap:anywhere}
.iw.full{max-width:none;min-height:100vh;border-radius:0;display:flex;flex-direction:column;justify-content:center}
.iw.full>*{width:100%;max-width:480px;margin-left:auto;margin-right:auto}
h2{font-size:1.35rem;margin:0 0 4px}
.desc{margin:0 0 8px;color:var(--iw-muted,#4b5563)}
.stage{width:100%;max-width:320px;margin:8px auto 16px}
svg{display:block;width:100%;height:auto}
.rot{transform-box:view-box;transform-origin:0 0}
svg text,.ptr,.hub,.rim{pointer-events:none}
.seg.won{stroke:#111;stroke-width:3}
button{font:inherit;font-weight:700;border:0;border-radius:999px;padding:10px 24px;min-height:44px;cursor:pointer;background:var(--iw-accent,#4f46e5);color:var(--iw-accent-text,#fff)}
button[aria-disabled=true]{opacity:.55;cursor:not-allowed}
button:focus-visible,input:focus-visible,a:focus-visible,summary:focus-visible,[tabindex]:focus-visible{outline:3px solid var(--iw-focus,#f59e0b);outline-offset:2px}
.status{min-height:1.4em;margin:12px 0 0;font-weight:600;font-size:1.1rem}
.error{margin:12px 0 0;padding:10px 12px;border-radius:8px;background:#fef2f2;color:#991b1b;border:1px solid #fecaca}
.error:empty{padding:0;margin:0;border:0}
.claim{margin-top:16px;text-align:left}
.claim label{display:block;font-weight:600;margin-bottom:6px}
.row{display:flex;flex-wrap:wrap;gap:8px}
.row input{flex:1 1 180px;min-width:0;min-height:44px;padding:8px 12px;font:inherit;color:#111;background:#fff;border:1px solid #6b7280;border-radius:8px}
.row input[aria-invalid=true]{border:2px solid #b91c1c}
.row button{flex:1 0 auto}
.hint{font-size:.875rem;color:var(--iw-muted,#4b5563);margin:6px 0 0}
.prize{margin-top:16px;padding:16px;border:2px dashed var(--iw-accent,#4f46e5);border-radius:12px}
.prize h3{margin:0 0 8px;font-size:1.15rem}
.prize p{margin:8px 0 0}
.code{display:inline-block;font:700 1.25rem ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;letter-spacing:.04em;padding:6px 10px;background:#f3f4f6;color:#111;border-radius:6px;word-break:break-all;user-select:all}
.copy{padding:6px 16px;margin:8px 0 0 8px;font-size:.9rem}
.prize a{display:inline-block;margin-top:12px;font-weight:700;color:var(--iw-link,#3730a3)}
details{margin-top:16px;text-align:left;font-size:.9rem}
summary{cursor:pointer;font-weight:600}
details ul{list-style:none;margin:8px 0 0;padding:0}
details li{display:flex;align-items:center;gap:8px;padding:2px 0}
.sw{width:12px;height:12px;border-radius:3px;flex:0 0 auto;border:1px solid rgba(0,0,0,.25)}
.pct{margin-left:auto;font-variant-numeric:tabular-nums}
.tile{width:100%;max-width:240px;aspect-ratio:1/1;margin:0 auto;border-radius:20px;display:flex;align-items:center;justify-content:center;padding:16px;font-weight:800;font-size:1.4rem;background:linear-gradient(135deg,var(--iw-a),var(--iw-b));color:var(--iw-t);box-shadow:inset 0 -6px 0 rgba(0,0,0,.15)}
.tile.shake{animation:iw-shake .9s ease-in-out}
.tile.shown{animation:iw-pop .45s ease-out}
@keyframes iw-shake{0%,100%{transform:rotate(0)}20%{transform:rotate(-6deg) scale(1.03)}40%{transform:rotate(6deg)}60%{transform:rotate(-4deg) scale(1.03)}80%{transform:rotate(4deg)}}
@keyframes iw-pop{from{transform:scale(.85);opacity:.4}to{transform:scale(1);opacity:1}}
@media (prefers-reduced-motion:reduce){.tile.shake,.tile.shown{animation:none}}
`;
