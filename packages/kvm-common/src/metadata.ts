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
  /** The addresses allocated from the host's egress plan (absent without a plan). */
  egress?: { ipv4?: string; ipv6?: string };
  /** The NIC's MAC, pinned when the domain has planned addresses (the seed matches on it). */
  mac?: string;
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
    ...(mark.egress?.ipv4 ? [`${a.egressIPv4}="${escapeXml(mark.egress.ipv4)}"`] : []),
    ...(mark.egress?.ipv6 ? [`${a.egressIPv6}="${escapeXml(mark.egress.ipv6)}"`] : []),
    ...(mark.mac ? [`${a.mac}="${escapeXml(mark.mac)}"`] : []),
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
  const ipv4 = attrs.get(a.egressIPv4);
  const ipv6 = attrs.get(a.egressIPv6);
  const mac = attrs.get(a.mac);
  return {
    managed: attrs.get(a.managed) === 'true',
    uid: attrs.get(a.uid) ?? '',
    ...(createdAt && !Number.isNaN(createdAt.getTime()) ? { createdAt } : {}),
    ...(installation ? { installation } : {}),
    ...(ipv4 || ipv6 ? { egress: { ...(ipv4 ? { ipv4 } : {}), ...(ipv6 ? { ipv6 } : {}) } } : {}),
    ...(mac ? { mac } : {}),
  };
}
