/**
 * Just enough XML for the AWS emulators: parse request bodies into a tree of elements (no
 * attributes, no namespaces, no DTDs: the SDK sends none of those) and write responses.
 */
export interface XmlNode {
  name: string;
  text: string;
  children: XmlNode[];
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|lt|gt|amp|quot|apos);/gi, (_, e: string) => {
    if (e.startsWith('#x') || e.startsWith('#X')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
    return ENTITIES[e.toLowerCase()] ?? '';
  });
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function parseXml(xml: string): XmlNode {
  const root: XmlNode = { name: '#root', text: '', children: [] };
  const stack: XmlNode[] = [root];
  const re = /<(\/?)([A-Za-z_][\w.:-]*)[^>]*?(\/?)>|<\?[^>]*\?>|<!--[\s\S]*?-->|([^<]+)/g;
  for (let m = re.exec(xml); m !== null; m = re.exec(xml)) {
    const top = stack[stack.length - 1] as XmlNode;
    if (m[4] !== undefined) {
      top.text += decode(m[4]);
      continue;
    }
    if (m[2] === undefined) continue;
    if (m[1] === '/') {
      if (stack.length > 1) stack.pop();
      continue;
    }
    const node: XmlNode = { name: m[2].replace(/^.*:/, ''), text: '', children: [] };
    top.children.push(node);
    if (m[3] !== '/') stack.push(node);
  }
  const doc = root.children[0];
  if (doc === undefined) throw new Error('empty XML document');
  return doc;
}

export function child(node: XmlNode | undefined, name: string): XmlNode | undefined {
  return node?.children.find((c) => c.name === name);
}

export function children(node: XmlNode | undefined, name: string): XmlNode[] {
  return node?.children.filter((c) => c.name === name) ?? [];
}

export function textOf(node: XmlNode | undefined, name: string): string | undefined {
  const c = child(node, name);
  return c === undefined ? undefined : c.text.trim();
}

/** An element with escaped text, or nested elements when given an array of already-built XML. */
export function el(name: string, content: string | number | boolean | readonly string[] | undefined): string {
  if (content === undefined) return '';
  const inner = Array.isArray(content) ? content.join('') : escapeXml(String(content));
  return `<${name}>${inner}</${name}>`;
}
