import { conditionSchema } from './proxy.js';
import { type Infer, s } from './schema.js';

const targetSchema = s.object({
  target: s.string().describe('What was checked: a host, node, project or API server.'),
  address: s.string().describe('Where it was reached.'),
  ready: s.boolean(),
  reason: s.string(),
  message: s.string().optional(),
  details: s.stringMap().optional(),
  lastCheckTime: s.dateTime(),
});

export const providerHealthStatusSchema = s
  .object({
    type: s.string().describe('The provider type.'),
    ready: s.boolean().optional().describe('True when every target is ready.'),
    summary: s.string().optional().describe('Ready targets out of all, e.g. 2/3.'),
    message: s.string().optional().describe('Why the check itself could not run, when it could not.'),
    lastCheckTime: s.dateTime().optional(),
    targets: s.array(targetSchema, { mapKeys: ['target'] }).optional(),
    conditions: s
      .array(conditionSchema, { mapKeys: ['type'] })
      .optional()
      .describe('Ready: every target answered ready (what `kubectl wait --for=condition=Ready` reads).'),
  })
  .describe("The provider's health, one entry per Checker target.");

export const providerHealthSpecSchema = s
  .object({})
  .describe('Empty: a ProviderHealth exists for every configured provider and carries only status.');

export type ProviderHealthStatus = Infer<typeof providerHealthStatusSchema>;
export type ProviderHealthTarget = Infer<typeof targetSchema>;
