"""audit_sarif.py ENVLOCK ROOT — `envlock audit --format sarif` against the
published SARIF 2.1.0 schema (tests/advisories/schemas), with Debian's
python3-jsonschema. The lock has two findings (tests/cli/cases/audit_findings:
requests 2.31.0 is before GHSA-9wx4-h78v-vm56's fix 2.32.2, lodash 4.17.20
before GHSA-35jh-r3h4-6jhm's 4.17.21), so the output must be valid SARIF with
one result per finding, each naming its advisory as ruleId, and the exit
status must be 1. A document missing `version` must fail the same schema
(the validator is really checking).

With --spec (tests/cli/cases/audit_spec), each result is located at the
spec entry that brings its package in: lodash's own line, and app's line for
requests (app requires it); the lines are found here by reading the spec's
text, and the lock's line stays as a related location."""
import json
import os
import subprocess
import sys

import jsonschema


def entry_line(path, entry):
    """1-based line and column of the list item `- entry` in the spec text."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.strip() == "- " + entry:
                return n, line.index(entry) + 1
    raise AssertionError("no entry %s in %s" % (entry, path))


def check_spec_located(envlock, root, v):
    case = "tests/cli/cases/audit_spec/"
    p = subprocess.run([envlock, "audit", case + "envlock.lock", "--advisories",
                        "tests/advisories/records", "--format", "sarif", "--spec",
                        case + "spec.yaml", "--bases", "corpus/demo/bases.yaml"],
                       cwd=root, capture_output=True, text=True)
    assert p.returncode == 1, (p.returncode, p.stderr)
    doc = json.loads(p.stdout)
    assert not list(v.iter_errors(doc))
    spec = os.path.join(root, case + "spec.yaml")
    want = {"GHSA-35jh-r3h4-6jhm": entry_line(spec, "lodash@4.17.20"),
            "GHSA-9wx4-h78v-vm56": entry_line(spec, "app==2.0")}
    for r in doc["runs"][0]["results"]:
        loc = r["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == case + "spec.yaml", loc
        got = (loc["region"]["startLine"], loc["region"]["startColumn"])
        assert got == want[r["ruleId"]], (r["ruleId"], got, want[r["ruleId"]])
        rel = r["relatedLocations"][0]["physicalLocation"]
        assert rel["artifactLocation"]["uri"] == case + "envlock.lock", rel


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
    check_spec_located(envlock, root, v)
    broken = dict(doc)
    del broken["version"]
    assert list(v.iter_errors(broken)), "the schema accepted a document without version"
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
