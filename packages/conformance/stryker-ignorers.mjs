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

/** Whether `path` is `argument` of a call matching `isCall`, or inside it. */
function insideArgument(path, isCall, argument) {
  for (let p = path; p?.parentPath; p = p.parentPath) {
    const parent = p.parentPath.node;
    if (isCall(parent) && parent.arguments[argument] === p.node) return true;
  }
  return false;
}

const inside = (path, predicate) => Boolean(path.findParent?.((p) => predicate(p.node)));

const keyName = (node) => node?.key?.name ?? node?.key?.value;

const LOG_FIELDS =
  "log fields: 2.9 fixes a line's provider and trace IDs (the call's logger) and a backend call's name, duration and error (OPS-17); the rest of a line is the provider's own";
const LOG_TEXT = 'log message text is not part of the contract';
const DETAILS =
  'details are facts the provider chooses (2.5, 2.11): the kit checks only that they are strings without secrets';
const OP_LABEL =
  'OpContext.op names the operation for readers and the kit’s own mutants; no provider code branches on it';
const CONSTRUCTION =
  'construction: the harness hands the kit a constructed provider (the config is validated by the loader, 2.8); provider.test.ts covers it';
const SEPARATOR = 'the separator of a list inside a message';

export const strykerPlugins = [
  {
    kind: 'Ignore',
    name: 'log-text',
    value: {
      shouldIgnore(path) {
        const parent = path.parentPath?.node;
        if (isLogCall(parent) && parent.arguments[1] === path.node) return LOG_TEXT;
        return undefined;
      },
    },
  },
  {
    kind: 'Ignore',
    name: 'contract-free',
    value: {
      shouldIgnore(path) {
        if (insideArgument(path, isLogCall, 2) || insideArgument(path, isFailCall, 3)) return LOG_FIELDS;
        if (inside(path, (n) => n.type === 'ClassMethod' && keyName(n) === 'createDetail')) return LOG_FIELDS;
        if (inside(path, (n) => n.type === 'ClassMethod' && n.kind === 'constructor')) return CONSTRUCTION;
        if (inside(path, (n) => n.type === 'ObjectProperty' && keyName(n) === 'details')) return DETAILS;
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
        if (inside(path, (n) => n.type === 'ObjectProperty' && keyName(n) === 'op')) return OP_LABEL;
        const parent = path.parentPath?.node;
        if (
          path.node?.type === 'StringLiteral' &&
          parent?.type === 'CallExpression' &&
          parent.callee?.property?.name === 'join'
        )
          return SEPARATOR;
        return undefined;
      },
    },
  },
];
