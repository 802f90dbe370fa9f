"""audit_sarif.py ENVLOCK ROOT — `envlock audit --format sarif` against the
published SARIF 2.1.0 schema (tests/advisories/schemas), with Debian's
python3-jsonschema. The lock has two findings (tests/cli/cases/audit_findings:
requests 2.31.0 is before GHSA-9wx4-h78v-vm56's fix 2.32.2, lodash 4.17.20
before GHSA-35jh-r3h4-6jhm's 4.17.21), so the output must be valid SARIF with
one result per finding, each naming its advisory as ruleId, and the exit
status must be 1. A document missing `version` must fail the same schema
(the validator is really checking)."""
import json
import os
import subprocess
import sys

import jsonschema


def main():
    envlock, root = sys.argv[1], sys.argv[2]
    with open(os.path.join(root, "tests/advisories/schemas/sarif-schema-2.1.0.json")) as f:
        schema = json.load(f)
    v = jsonschema.Draft4Validator(schema)
    p = subprocess.run([envlock, "audit", "tests/cli/cases/audit_findings/envlock.lock",
                        "--advisories", "tests/advisories/records", "--format", "sarif"],
                       cwd=root, capture_output=True, text=True)
    assert p.returncode == 1, (p.returncode, p.stderr)
    doc = json.loads(p.stdout)
    errors = sorted(v.iter_errors(doc), key=str)
    for e in errors:
        print("invalid:", e.message, list(e.path))
    assert not errors
    results = doc["runs"][0]["results"]
    assert sorted(r["ruleId"] for r in results) == ["GHSA-35jh-r3h4-6jhm",
                                                    "GHSA-9wx4-h78v-vm56"], results
    rules = [r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]]
    assert sorted(rules) == sorted(set(rules)) == sorted(r["ruleId"] for r in results)
    broken = dict(doc)
    del broken["version"]
    assert list(v.iter_errors(broken)), "the schema accepted a document without version"
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
