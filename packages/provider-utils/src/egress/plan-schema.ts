import { formatValue } from '../config/format-value.js';
import { array } from '../schema/array.js';
import { object } from '../schema/object.js';
import { int, string } from '../schema/scalars.js';
import type { CheckContext, Infer, InferInput, Schema } from '../schema/schema.js';
import { bitsOf, type Family, familyOf, fromBig, parseCidr, sameSubnet, toBig } from './addresses.js';
import { compileEgressPlan, effectivePrefixLength, parseRange } from './plan.js';

const address = (family: Family): Schema<string> =>
  string().refine(
    (s) => familyOf(s) === family,
    (s) => `${formatValue(s)} is not an IPv${family} address`,
  );

const rangeText = (family: Family | undefined): Schema<string> =>
  string().refine(
    (s) => {
      const r = parseRange(s);
      return r !== undefined && (family === undefined || r.family === family);
    },
    (s) =>
      `${formatValue(s)} is not an ${family ? `IPv${family} ` : ''}address, range (first-last) or CIDR (address/prefix)` +
      (family === 4 ? ', for example 203.0.113.8/29 or 203.0.113.10-203.0.113.14' : ''),
  );

const ipv4Schema = object({
  ranges: array(rangeText(4), { min: 1 }),
  prefixLength: int(1, 32).optional(),
  gateway: address(4),
});

const ipv6Schema = object({
  prefix: string().refine(
    (s) => parseCidr(s)?.family === 6,
    (s) => `${formatValue(s)} is not an IPv6 prefix (address/length, for example 2001:db8:1::/64)`,
  ),
  prefixLength: int(1, 128).optional(),
  gateway: address(6),
});

/** The ranges must sit in the gateway's on-link subnet, or the instance could not reach it. */
function checkOnLink(
  family: Family,
  block: { ranges: unknown[]; prefixLength?: unknown; gateway?: unknown },
  key: 'ranges' | 'prefix',
  ctx: CheckContext,
  at: string,
): void {
  const ranges = block.ranges.filter(
    (r): r is string => typeof r === 'string' && parseRange(r)?.family === family,
  );
  const configured = typeof block.prefixLength === 'number' ? block.prefixLength : undefined;
  const prefix = effectivePrefixLength(ranges, configured);
  if (prefix === undefined) {
    if (block.prefixLength === undefined && ranges.length === block.ranges.length) {
      ctx.issue('required when no range is a CIDR (the prefix length written on the NIC, for example 29)', [
        at,
        'prefixLength',
      ]);
    }
    return;
  }
  if (typeof block.gateway !== 'string' || familyOf(block.gateway) !== family) return;
  const gw = toBig(block.gateway).value;
  const hostBits = BigInt(bitsOf(family) - prefix);
  const subnet = `${fromBig(family, (gw >> hostBits) << hostBits)}/${prefix}`;
  block.ranges.forEach((r, i) => {
    const p = typeof r === 'string' ? parseRange(r) : undefined;
    if (!p || p.family !== family) return;
    if (!sameSubnet(family, p.lo, gw, prefix) || !sameSubnet(family, p.hi, gw, prefix)) {
      ctx.issue(
        `${formatValue(r)} is outside the on-link subnet ${subnet} of gateway ${block.gateway}; the ranges, the gateway and the prefix length must agree`,
        key === 'ranges' ? [at, 'ranges', i] : [at, 'prefix'],
      );
    }
  });
}

/**
 * An egress plan in a provider config: IPv4 ranges or CIDRs and/or an IPv6 prefix routed to
 * the host, with the gateway, prefix length, DNS servers and exclusions. Every issue names the
 * bad value and what was expected; a plan that leaves nothing to allocate is an issue too.
 */
export const egressPlanSchema = object({
  ipv4: ipv4Schema.optional(),
  ipv6: ipv6Schema.optional(),
  nameservers: array(
    string().refine(
      (s) => familyOf(s) !== undefined,
      (s) => `${formatValue(s)} is not an IPv4 or IPv6 address`,
    ),
  ).default(() => []),
  exclude: array(rangeText(undefined)).default(() => []),
}).check((plan, ctx) => {
  if (plan.ipv4 === undefined && plan.ipv6 === undefined) {
    ctx.issue('a plan needs ipv4 (ranges and gateway), ipv6 (prefix and gateway), or both');
    return;
  }
  let found = 0;
  const counting: CheckContext = {
    issue: (m, p) => {
      found += 1;
      ctx.issue(m, p);
    },
  };
  if (plan.ipv4 && Array.isArray(plan.ipv4.ranges)) checkOnLink(4, plan.ipv4, 'ranges', counting, 'ipv4');
  const v6 = plan.ipv6 && typeof plan.ipv6.prefix === 'string' ? parseCidr(plan.ipv6.prefix) : undefined;
  if (plan.ipv6 && v6?.family === 6) {
    checkOnLink(6, { ...plan.ipv6, ranges: [plan.ipv6.prefix] }, 'prefix', counting, 'ipv6');
    const p = v6;
    if (typeof plan.ipv6.prefixLength === 'number' && plan.ipv6.prefixLength > p.prefix) {
      counting.issue(
        `${plan.ipv6.prefixLength} is longer than the prefix ${plan.ipv6.prefix}; the on-link prefix must contain it`,
        ['ipv6', 'prefixLength'],
      );
    }
  }
  if (found > 0) return;
  // The size is only meaningful once the families agree with their gateways.
  try {
    const compiled = compileEgressPlan('plan', plan as EgressPlanOutput);
    for (const f of [compiled.ipv4, compiled.ipv6]) {
      if (f && f.size === 0n) {
        ctx.issue(
          `leaves no IPv${f.family} address to allocate once the gateway, network, broadcast and exclusions are taken out`,
          [f.family === 4 ? 'ipv4' : 'ipv6'],
        );
      }
    }
  } catch {
    // A part that failed its own rule is already reported at its path.
  }
});

export type EgressPlanOutput = Infer<typeof egressPlanSchema>;
export type EgressPlanInput = InferInput<typeof egressPlanSchema>;
