// StrykerJS ignorers: the classes of mutants in the reference provider that no conforming or
// broken provider can be told apart by, because the contract (docs/contract.md) leaves the mutated
// value to the provider. Each class gives its reason; the report shows it per ignored mutant, and
// MUTATION.md lists them. Single equivalent mutants carry a `Stryker disable` comment instead.

/** `x.log(<verbosity>, message, fields)`. */
const isLogCall = (node) =>
  node?.type === 'CallExpression' &&
  node.callee?.type === 'MemberExpression' &&
  node.callee.property?.name === 'log' &&
  node.arguments?.[0]?.type === 'NumericLiteral';

/** `this.fail(log, operation, err, fields)`: the fields of the failure line. */
const isFailCall = (node) =>
  node?.type === 'CallExpression' &&
  node.callee?.type === 'MemberExpression' &&
  node.callee.object?.type === 'ThisExpression' &&
  node.callee.property?.name === 'fail';

/** The `argument` of the nearest call matching `isCall` that `path` is in (or is), else undefined. */
function argumentOf(path, isCall, argument) {
  for (let p = path; p?.parentPath; p = p.parentPath) {
    const parent = p.parentPath.node;
    if (isCall(parent) && parent.arguments[argument] === p.node) return p;
  }
  return undefined;
}

/**
 * Fields 2.9 fixes: the instance (`provider`, `name`), the target (`host`), the trace (`traceId`,
 * `spanId`) and a backend call's call, duration and error (`step`, `ms`, `error`). OPS-04 and
 * OPS-16..19 read them; every other field of a line is the provider's own.
 */
const FIXED_FIELDS = new Set(['provider', 'name', 'host', 'traceId', 'spanId', 'step', 'ms', 'error']);

/** An object literal of fields 2.9 leaves free only (no spread, no fixed key). */
const onlyFreeFields = (node) =>
  node?.type === 'ObjectExpression' &&
  node.properties.every((q) => q.type === 'ObjectProperty' && !FIXED_FIELDS.has(keyName(q)));

/**
 * Whether `path` is inside a field the contract leaves free, within `top` (a line's fields): the
 * value of a property not in FIXED_FIELDS. A mutant of the fields object as a whole (emptied) or of
 * a fixed field is not free.
 */
function inFreeField(path, top) {
  for (let p = path; p && p.node !== top.node; p = p.parentPath) {
    if (p.node?.type === 'ObjectProperty' && p.parentPath?.node === top.node)
      return !FIXED_FIELDS.has(keyName(p.node));
  }
  return false;
}

/** The value of a `details` property that carries the backend's own code (2.5 fixes it for BACKEND_ERROR). */
const isCodedDetails = (path) =>
  path.node?.type === 'ObjectExpression' &&
  path.node.properties.some((q) => keyName(q) === 'backendCode') &&
  path.parentPath?.node.type === 'ObjectProperty' &&
  keyName(path.parentPath.node) === 'details';

const inside = (path, predicate) => Boolean(path.findParent?.((p) => predicate(p.node)));

const keyName = (node) => node?.key?.name ?? node?.key?.value;

const LOG_FIELDS =
  "a free log field: 2.9 fixes provider, name, host, the trace IDs and a backend call's step, duration and error (OPS-16..19); this one is the provider's own";
const DETAILS =
  "details are facts the provider chooses (2.5, 2.11) but a BACKEND_ERROR's backend code (OPS-19): the kit checks only that they hold no secrets";
const DEFAULT_BACKEND =
  'the default backend: every harness hands the provider its own backend (provider.test.ts covers the default)';
const SEPARATOR =
  'the separator of a list of names inside a message (2.5 asks that the names be there, not how they are joined)';

/** The right operand of `options.backend ?? new ReferenceBackend(...)` in the constructor: the default backend. */
const inDefaultBackend = (path) =>
  inside(path, (n) => n.type === 'ClassMethod' && n.kind === 'constructor') &&
  Boolean(
    path.findParent?.(
      (p) =>
        p.parentPath?.node.type === 'LogicalExpression' &&
        p.parentPath.node.operator === '??' &&
        p.parentPath.node.right === p.node,
    ) ||
      (path.parentPath?.node.type === 'LogicalExpression' &&
        path.parentPath.node.operator === '??' &&
        path.parentPath.node.right === path.node),
  );

/** Inside the function `listed`, the one place a list of names is joined for a message. */
const inListed = (path) => inside(path, (n) => n.type === 'FunctionDeclaration' && n.id?.name === 'listed');

export const strykerPlugins = [
  {
    kind: 'Ignore',
    name: 'contract-free',
    value: {
      shouldIgnore(path) {
        const fields =
          argumentOf(path, isLogCall, 2) ??
          argumentOf(path, isFailCall, 3) ??
          path.findParent?.(
            (p) =>
              p.node.type === 'ObjectExpression' &&
              p.parentPath?.node.type === 'ReturnStatement' &&
              p.findParent((q) => q.node.type === 'ClassMethod' && keyName(q.node) === 'createDetail'),
          );
        if (fields && inFreeField(path, fields)) return LOG_FIELDS;
        // A line's fields emptied where none of them is fixed (a count on an outcome line).
        if (path === argumentOf(path, isLogCall, 2) && onlyFreeFields(path.node)) return LOG_FIELDS;
        if (inDefaultBackend(path)) return DEFAULT_BACKEND;
        if (
          inside(path, (n) => n.type === 'ObjectProperty' && keyName(n) === 'details') &&
          !isCodedDetails(path)
        )
          return DETAILS;
        if (
          inside(
            path,
            (n) =>
              n.type === 'AssignmentExpression' &&
              n.left?.type === 'MemberExpression' &&
              n.left.object?.name === 'details',
          ) ||
          inside(path, (n) => n.type === 'VariableDeclarator' && n.id?.name === 'details')
        )
          return DETAILS;
        const parent = path.parentPath?.node;
        if (
          path.node?.type === 'StringLiteral' &&
          parent?.type === 'CallExpression' &&
          parent.callee?.property?.name === 'join' &&
          inListed(path)
        )
          return SEPARATOR;
        return undefined;
      },
    },
  },
];
