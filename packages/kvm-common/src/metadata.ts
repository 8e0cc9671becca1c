import { permanentError } from '@egress-proxies/contract';
import type { KvmFlavour } from './flavour.js';
import { METADATA_ATTRIBUTES, METADATA_ELEMENT } from './marks.js';
import { escapeXml, parseAttributes } from './xml-text.js';

/** The ownership mark in a domain's `<metadata>`. */
export interface Mark {
  managed: boolean;
  uid: string;
  createdAt?: Date;
  installation?: string;
}

/** The `<prefix:instance xmlns:prefix=... managed uid createdAt installation/>` element. */
export function metadataElement(flavour: KvmFlavour, mark: Mark): string {
  const a = METADATA_ATTRIBUTES;
  const attrs = [
    `xmlns:${flavour.prefix}="${escapeXml(flavour.namespace)}"`,
    `${a.managed}="${mark.managed ? 'true' : 'false'}"`,
    `${a.uid}="${escapeXml(mark.uid)}"`,
    ...(mark.createdAt ? [`${a.createdAt}="${mark.createdAt.toISOString()}"`] : []),
    ...(mark.installation ? [`${a.installation}="${escapeXml(mark.installation)}"`] : []),
  ];
  return `<${flavour.prefix}:${METADATA_ELEMENT} ${attrs.join(' ')}/>`;
}

const ELEMENT = new RegExp(
  `^\\s*<(?:[A-Za-z_][\\w.-]*:)?${METADATA_ELEMENT}((?:\\s+[^<>]*?)?)\\s*(?:/>|>[\\s\\S]*</(?:[A-Za-z_][\\w.-]*:)?${METADATA_ELEMENT}>)\\s*$`,
);

/**
 * Parses the element as libvirt hands it back: by local name, with or without the namespace
 * declaration (libvirt drops it). Anything unparsable is Permanent; an unparsable `createdAt`
 * gives an undefined time.
 */
export function parseMark(xml: string): Mark {
  const m = ELEMENT.exec(xml);
  const attrs = m ? parseAttributes(m[1] ?? '') : undefined;
  if (!attrs) throw permanentError(`the domain's metadata element does not parse (${xml.length} bytes)`);
  const a = METADATA_ATTRIBUTES;
  const created = attrs.get(a.createdAt);
  const createdAt = created ? new Date(created) : undefined;
  const installation = attrs.get(a.installation);
  return {
    managed: attrs.get(a.managed) === 'true',
    uid: attrs.get(a.uid) ?? '',
    ...(createdAt && !Number.isNaN(createdAt.getTime()) ? { createdAt } : {}),
    ...(installation ? { installation } : {}),
  };
}
