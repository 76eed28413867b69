/**
 * The public verification page of a draw (GET /draws/:drawId/verify?key=pk_...): its script
 * downloads the draw and its snapshot with the public key and re-checks everything in the
 * browser with WebCrypto, step by step: the snapshot's SHA-256, the seed's SHA-256, and every
 * winner and replacement recomputed with the published walk (a plain walk over the remaining
 * entries, written separately from the server's SQL). Text goes into the page with textContent
 * only; the page allows no inline script (CSP script-src 'self').
 */
import { escapeHtml } from '../lib/html.js';

export function verifyPageBody(drawId: string): string {
  return `<h1>Verify draw <code>${escapeHtml(drawId)}</code></h1>
<p>This page downloads the draw and its frozen list of eligible entries and recomputes the winners in your browser.
Nothing is taken on trust: every step below is computed here, from public data.</p>
<div id="app" data-draw="${escapeHtml(drawId)}">
<ol id="steps"></ol>
<p id="verdict" aria-live="polite">Checking…</p>
<table id="winners" hidden><thead><tr><th>#</th><th>entry</th><th>email</th><th>weight</th><th>replaced</th><th>recomputed</th></tr></thead><tbody></tbody></table>
</div>`;
}

export const VERIFY_JS = String.raw`(() => {
  'use strict';
  const app = document.getElementById('app');
  const steps = document.getElementById('steps');
  const verdict = document.getElementById('verdict');
  const drawId = app.dataset.draw;
  const key = new URLSearchParams(location.search).get('key') || '';
  const enc = new TextEncoder();
  const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
  const unhex = (s) => new Uint8Array(s.match(/../g).map((h) => parseInt(h, 16)));
  function step(text, good) {
    const li = document.createElement('li');
    li.textContent = text + ' ';
    if (good !== undefined) {
      const mark = document.createElement('span');
      mark.className = good ? 'ok' : 'bad';
      mark.textContent = good ? 'OK' : 'MISMATCH';
      li.appendChild(mark);
    }
    steps.appendChild(li);
    return good;
  }
  function finish(good, text) {
    verdict.className = good ? 'ok' : 'bad';
    verdict.textContent = text;
    document.body.dataset.verdict = good ? 'ok' : 'failed';
  }
  async function api(path) {
    const res = await fetch(path, { headers: { 'x-api-key': key } });
    if (!res.ok) {
      let message = res.status + '';
      try { message = (await res.json()).error || message; } catch (e) {}
      throw new Error(path + ': ' + message);
    }
    return res;
  }
  async function run() {
    const draw = (await (await api('/api/v1/draws/' + drawId)).json()).data;
    step('Draw downloaded: ' + draw.eligibleCount + ' eligible entries, total weight ' + draw.totalWeight + ', status ' + draw.status + '.');
    const csv = new Uint8Array(await (await api('/api/v1/draws/' + drawId + '/snapshot')).arrayBuffer());
    const snapshotHash = hex(await crypto.subtle.digest('SHA-256', csv));
    if (!step('SHA-256 of the snapshot (' + csv.length + ' bytes) = ' + snapshotHash + ', published snapshotHash = ' + draw.snapshotHash + '.', snapshotHash === draw.snapshotHash)) return finish(false, 'The snapshot does not match its published hash.');
    const lines = new TextDecoder().decode(csv).split('\n');
    if (lines.pop() !== '' || lines[0] !== 'entry_id,weight,email_sha256') return finish(false, 'The snapshot is not in the published format.');
    const ids = [];
    const weights = [];
    let total = 0;
    let prev = '';
    for (let i = 1; i < lines.length; i++) {
      const [id, w] = lines[i].split(',');
      if (!(id > prev)) return finish(false, 'Snapshot line ' + (i + 1) + ' is not in entry-id order.');
      prev = id;
      ids.push(id);
      weights.push(Number(w));
      total += Number(w);
    }
    if (!step('Snapshot lines: ' + ids.length + ' entries, total weight ' + total + ' (the draw says ' + draw.eligibleCount + ' and ' + draw.totalWeight + ').', ids.length === draw.eligibleCount && total === draw.totalWeight)) return finish(false, 'The snapshot does not match the draw.');
    if (draw.status !== 'revealed') {
      step('The draw is committed but not revealed yet: its seed is secret, committed by seedHash ' + draw.seedHash + '.');
      return finish(true, 'Snapshot verified. Come back after the reveal to check the winners.');
    }
    const seed = unhex(draw.seed);
    const seedHash = hex(await crypto.subtle.digest('SHA-256', seed));
    if (!step('SHA-256 of the revealed seed = ' + seedHash + ', committed seedHash = ' + draw.seedHash + '.', seedHash === draw.seedHash)) return finish(false, 'The revealed seed is not the committed one.');
    const hmacKey = await crypto.subtle.importKey('raw', seed, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const prefix = draw.snapshotHash + ':' + (draw.publicRandomness == null ? '' : draw.publicRandomness) + ':';
    step('Random stream: u_i = first 8 bytes of HMAC-SHA256(seed, "' + prefix + '<i>").');
    const TWO64 = 1n << 64n;
    const picked = new Uint8Array(ids.length);
    let remaining = total;
    let i = 0;
    const results = draw.results.slice().sort((a, b) => a.position - b.position);
    const initial = Math.min(draw.winners, draw.eligibleCount);
    const replacedCount = results.filter((r) => r.replaced).length;
    if (!step(results.length + ' results: ' + initial + ' winners and ' + replacedCount + ' replacement(s).', results.length === initial + replacedCount)) return finish(false, 'The number of results is not the published one.');
    const tbody = document.querySelector('#winners tbody');
    document.getElementById('winners').hidden = false;
    let allGood = true;
    for (const r of results) {
      const W = BigInt(remaining);
      const limit = TWO64 - (TWO64 % W);
      let u;
      for (;;) {
        const mac = new Uint8Array(await crypto.subtle.sign('HMAC', hmacKey, enc.encode(prefix + i)));
        i++;
        u = new DataView(mac.buffer).getBigUint64(0, false);
        if (u < limit) break;
        step('u_' + (i - 1) + ' = ' + u + ' rejected (>= ' + limit + ').');
      }
      const x = Number(u % W);
      let sum = 0;
      let k = -1;
      for (let j = 0; j < ids.length; j++) {
        if (picked[j]) continue;
        sum += weights[j];
        if (sum > x) { k = j; break; }
      }
      picked[k] = 1;
      remaining -= weights[k];
      const good = ids[k] === r.entryId;
      allGood = allGood && good;
      const tr = document.createElement('tr');
      for (const cell of [r.position, r.entryId, r.email == null ? '' : r.email, r.weight, r.replaced ? 'yes: ' + (r.replacedReason || '') : 'no', good ? 'OK' : 'MISMATCH: ' + ids[k]]) {
        const td = document.createElement('td');
        td.textContent = String(cell);
        tr.appendChild(td);
      }
      tr.lastChild.className = good ? 'ok' : 'bad';
      tbody.appendChild(tr);
      if (!good) break;
    }
    step('Every winner recomputed from the seed and the snapshot.', allGood);
    finish(allGood, allGood ? 'Verified: every winner and replacement follows from the committed seed and snapshot.' : 'A winner does not follow from the seed and snapshot.');
  }
  run().catch((e) => { step('Error: ' + e.message); finish(false, 'Could not verify: ' + e.message); });
})();
`;
