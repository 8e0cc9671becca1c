"""Reads vendor-data the way cloud-init's user-data processor does (gunzip the blob, parse it
as MIME when 'mime-version:' is in its first 4096 bytes, walk the leaf parts, base64-decode,
gunzip gzip parts) and reports each part's type, length and SHA-256 as JSON."""
import email
import gzip
import hashlib
import json
import sys

raw = open(sys.argv[1], "rb").read()
if raw[:2] == b"\x1f\x8b":
    raw = gzip.decompress(raw)
report = {"mime": b"mime-version:" in raw[:4096].lower(), "parts": []}
if report["mime"]:
    msg = email.message_from_string(raw.decode("utf-8"))
    for part in msg.walk():
        if part.get_content_maintype() == "multipart":
            continue
        ctype = part.get_content_type()
        payload = part.get_payload(decode=True)
        if ctype in ("application/gzip", "application/x-gzip"):
            payload = gzip.decompress(payload)
        report["parts"].append(
            {"type": ctype, "length": len(payload), "sha256": hashlib.sha256(payload).hexdigest()}
        )
json.dump(report, sys.stdout)
