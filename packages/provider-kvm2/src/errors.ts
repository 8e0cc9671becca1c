// The kvm2 provider's error codes and check reasons (shared with kvm through kvm-common).
export {
  classify,
  KvmCheckReason as Kvm2CheckReason,
  KvmErrorCode as Kvm2ErrorCode,
} from '@egress-proxies/kvm-common';
