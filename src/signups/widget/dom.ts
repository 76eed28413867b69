/** The widget's small DOM helpers: elements, text, the clipboard. */

export function el(tag: string, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'value') (e as HTMLInputElement).value = v;
    else e.setAttribute(k, v);
  }
  put(e, ...children);
  return e;
}

/** children added to a node (strings as text) */
export function put(node: HTMLElement, ...children: (Node | string)[]) {
  for (const c of children) node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
}

/**
 * `text` to the clipboard, said in `status` (a live region); where the browser refuses, the field
 * that shows it (if any) is selected for the visitor to copy.
 */
export async function copyText(text: string, status: HTMLElement, said: string, field?: HTMLInputElement) {
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = said;
  } catch {
    field?.select();
  }
}

/** `a***@example.com`: enough to tell whose entry a link opens, not the address */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 1 ? '***' : `${email[0]}***${email.slice(at)}`;
}
