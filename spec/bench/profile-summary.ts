// Sums a CPU profile and a sampling heap profile (flow-profiler.ts) by the code that
// spent the time or allocated: weir's own, each package, Node's internals, native.

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface CpuNode {
  id: number;
  callFrame: CallFrame;
}

export interface CpuProfile {
  nodes: CpuNode[];
  samples: number[];
  timeDeltas: number[];
}

interface HeapNode {
  id: number;
  callFrame: CallFrame;
  selfSize: number;
  children: HeapNode[];
}

export interface HeapProfile {
  head: HeapNode;
  samples: { size: number; nodeId: number }[];
}

/** One function's or one group's share. */
export interface Site {
  name: string;
  /** CPU µs, or bytes allocated. */
  amount: number;
  /** Objects allocated (heap only). */
  objects?: number;
}

export interface ProfileSummary {
  cpuUs: number;
  cpuGroups: Site[];
  cpuTop: Site[];
  heapBytes: number;
  heapObjects: number;
  heapGroups: Site[];
  heapTop: Site[];
}

const UNKNOWN: CallFrame = { functionName: '(unknown)', url: '', lineNumber: 0 };

/** weir's files, each package under node_modules, node: internals, or the VM's own entries. */
export function groupOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1] as string;
  if (url.includes('/dist/')) return 'weir';
  if (url.startsWith('node:')) return 'node internals';
  if (url === '') return functionName === '(garbage collector)' || functionName === '(idle)' || functionName === '(program)' ? functionName : 'native';
  return 'other';
}

function siteOf(frame: CallFrame): string {
  const file = frame.url.replace(/^.*\/(dist|node_modules)\//, '');
  return `${frame.functionName || '(anonymous)'} ${file}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
}

function ranked(totals: Map<string, Site>, top: number): Site[] {
  return [...totals.values()].sort((a, b) => b.amount - a.amount).slice(0, top);
}

function add(totals: Map<string, Site>, name: string, amount: number, objects?: number): void {
  const site = totals.get(name) ?? { name, amount: 0, ...(objects === undefined ? {} : { objects: 0 }) };
  site.amount += amount;
  if (objects !== undefined) site.objects = (site.objects ?? 0) + objects;
  totals.set(name, site);
}

/** `heap` must sample every allocation (a 1-byte interval): each of its samples counts as one object. */
export function summarizeProfiles(cpu: CpuProfile, heap: HeapProfile, top = 25): ProfileSummary {
  const frames = new Map(cpu.nodes.map((n) => [n.id, n.callFrame]));
  const cpuGroups = new Map<string, Site>();
  const cpuSites = new Map<string, Site>();
  let cpuUs = 0;
  cpu.samples.forEach((id, i) => {
    const frame = frames.get(id) ?? UNKNOWN;
    const us = cpu.timeDeltas[i] ?? 0;
    if (frame.functionName === '(idle)') return;
    cpuUs += us;
    add(cpuGroups, groupOf(frame), us);
    add(cpuSites, siteOf(frame), us);
  });

  const heapFrames = new Map<number, CallFrame>();
  const walk = (n: HeapNode): void => {
    heapFrames.set(n.id, n.callFrame);
    n.children.forEach(walk);
  };
  walk(heap.head);
  const heapGroups = new Map<string, Site>();
  const heapSites = new Map<string, Site>();
  let heapBytes = 0;
  let heapObjects = 0;
  for (const s of heap.samples) {
    // A sample's node can be missing from the tree V8 hands back: counted, unattributed.
    const frame = heapFrames.get(s.nodeId) ?? UNKNOWN;
    // The profile was taken sampling every allocation, so each sample is one object of its size.
    heapBytes += s.size;
    heapObjects += 1;
    add(heapGroups, groupOf(frame), s.size, 1);
    add(heapSites, siteOf(frame), s.size, 1);
  }
  return {
    cpuUs,
    cpuGroups: ranked(cpuGroups, top),
    cpuTop: ranked(cpuSites, top),
    heapBytes,
    heapObjects,
    heapGroups: ranked(heapGroups, top),
    heapTop: ranked(heapSites, top),
  };
}
