/** The Kubernetes naming rules this package checks before a request leaves the process. */

const DNS1123_LABEL = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

/** A namespace name: a DNS-1123 label (at most 63 characters). */
export const isNamespaceName = (s: string): boolean => DNS1123_LABEL.test(s);

/** An object name such as a Pod's: a DNS-1123 subdomain (at most 253 characters). */
export const isObjectName = (s: string): boolean => s.length <= 253 && DNS1123_SUBDOMAIN.test(s);

/** A label value: empty, or at most 63 characters with alphanumeric ends. */
export const isLabelValue = (s: string): boolean => LABEL_VALUE.test(s);
