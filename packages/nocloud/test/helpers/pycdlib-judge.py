"""Opens an ISO with pycdlib and reports, as JSON, whether it found Rock Ridge and Joliet,
the names in each tree, and the length and SHA-256 of every file read through each tree."""
import hashlib
import io
import json
import sys

import pycdlib

iso = pycdlib.PyCdlib()
iso.open(sys.argv[1])
report = {"rockRidge": iso.has_rock_ridge(), "rockRidgeVersion": iso.rock_ridge, "joliet": iso.has_joliet(), "rr": {}, "jolietFiles": {}, "iso9660": []}


def digest(**path):
    out = io.BytesIO()
    iso.get_file_from_iso_fp(out, **path)
    data = out.getvalue()
    return {"length": len(data), "sha256": hashlib.sha256(data).hexdigest()}


for child in iso.list_children(rr_path="/"):
    if child.is_dot() or child.is_dotdot():
        continue
    name = child.rock_ridge.name().decode("utf-8")
    report["rr"][name] = digest(rr_path="/" + name)
    report["iso9660"].append(child.file_identifier().decode("ascii"))

for child in iso.list_children(joliet_path="/"):
    if child.is_dot() or child.is_dotdot():
        continue
    name = child.file_identifier().decode("utf-16_be")
    report["jolietFiles"][name] = digest(joliet_path="/" + name)

iso.close()
json.dump(report, sys.stdout)
