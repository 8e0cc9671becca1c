/**
 * Whether a pool's Ready members leave from distinct addresses (pure): members that share one
 * look the same to the sites being crawled, so rotation, sticky sessions and ban cooldowns act on
 * the same identity. The address is the one the probe target saw (status.egressIP).
 */

export interface EgressMember {
  name: string;
  ready: boolean;
  /** The address the probe target saw. */
  egressIP?: string;
  createdAt: number;
}

export interface DuplicateEgress {
  /** Each address two or more Ready members leave from, and those members, oldest first. */
  groups: { address: string; members: string[] }[];
  /** Every member of a group but its oldest: the ones `onDuplicateEgress: Recycle` replaces. */
  younger: Set<string>;
}

export function duplicateEgress(members: readonly EgressMember[]): DuplicateEgress {
  const by = new Map<string, EgressMember[]>();
  for (const m of members) {
    if (!m.ready || !m.egressIP) continue;
    by.set(m.egressIP, [...(by.get(m.egressIP) ?? []), m]);
  }
  const groups: DuplicateEgress['groups'] = [];
  const younger = new Set<string>();
  for (const [address, list] of by) {
    if (list.length < 2) continue;
    const sorted = [...list].sort((a, b) => a.createdAt - b.createdAt || (a.name < b.name ? -1 : 1));
    groups.push({ address, members: sorted.map((m) => m.name) });
    for (const m of sorted.slice(1)) younger.add(m.name);
  }
  return { groups, younger };
}

export interface DistinctEgressVerdict {
  status: 'True' | 'False' | 'Unknown';
  reason: 'DistinctEgress' | 'DuplicateEgress' | 'EgressNotSeen';
  message: string;
}

/** The pool's DistinctEgress condition. */
export function distinctEgressCondition(
  members: readonly EgressMember[],
  onDuplicate: 'Keep' | 'Recycle' = 'Keep',
): DistinctEgressVerdict {
  const seen = members.filter((m) => m.ready && m.egressIP);
  if (seen.length === 0) {
    return {
      status: 'Unknown',
      reason: 'EgressNotSeen',
      message:
        'no Ready member has an egress address seen by its probe (a probe target that echoes the caller shows it)',
    };
  }
  const { groups } = duplicateEgress(members);
  if (groups.length === 0) {
    return {
      status: 'True',
      reason: 'DistinctEgress',
      message: `${seen.length} Ready member${seen.length === 1 ? '' : 's'} leave from ${seen.length} distinct address${seen.length === 1 ? '' : 'es'}`,
    };
  }
  const text = groups.map((g) => `${g.members.join(' and ')} both leave from ${g.address}`).join('; ');
  return {
    status: 'False',
    reason: 'DuplicateEgress',
    message: `${text}${onDuplicate === 'Recycle' ? ' (recycling the younger)' : ''}`,
  };
}
