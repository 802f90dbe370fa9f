"""Another YAML implementation reads envlock's locks the same way: every
scalar the writer emits as a string loads as a Python str under PyYAML's
safe_load (YAML 1.1 resolvers, the strictest common reader), integers and
booleans stay what they are, and the structure matches what the keys say.
Usage: pyyaml_strings.py LOCK_TOOL"""
import subprocess
import sys

try:
    import yaml
except ImportError:
    print("PyYAML is not installed", file=sys.stderr)
    sys.exit(77)

INT_KEYS = {"lockVersion", "size"}
BOOL_KEYS = {"upgradeAll", "installedInBase"}


def walk(node, key, path, problems):
    if isinstance(node, dict):
        for k, v in node.items():
            if not isinstance(k, str):
                problems.append(f"{path}: key {k!r} is {type(k).__name__}")
            walk(v, k, f"{path}.{k}", problems)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            walk(v, key, f"{path}[{i}]", problems)
    elif key in INT_KEYS:
        if type(node) is not int:
            problems.append(f"{path}: {node!r} is not an int")
    elif key in BOOL_KEYS:
        if type(node) is not bool:
            problems.append(f"{path}: {node!r} is not a bool")
    elif node is None:
        if ".digests." not in path:  # only an unpublished base digest is null
            problems.append(f"{path}: null")
    elif not isinstance(node, str):
        problems.append(f"{path}: {node!r} loaded as {type(node).__name__}")


def main():
    tool = sys.argv[1]
    problems = []
    docs = [subprocess.run([tool, "sample"], check=True, capture_output=True).stdout]
    for seed in range(1, 301):
        docs.append(subprocess.run([tool, "gen", str(seed), "6"], check=True,
                                   capture_output=True).stdout)
    for n, raw in enumerate(docs):
        data = yaml.safe_load(raw.decode("utf-8"))
        if data.get("lockVersion") != 2:
            problems.append(f"doc {n}: lockVersion {data.get('lockVersion')!r}")
        walk(data, None, f"doc{n}", problems)
    sample = yaml.safe_load(docs[0].decode("utf-8"))
    expect = {
        ("target", "base", "channel"): "2026.09",
        ("target", "python"): "3.13.7",
        ("options", "upgradeAll"): False,
    }
    for keys, want in expect.items():
        v = sample
        for k in keys:
            v = v[k]
        if v != want:
            problems.append(f"sample {'.'.join(keys)}: {v!r} != {want!r}")
    versions = {(p["ecosystem"], p["name"], p.get("path")): p["version"] for p in sample["packages"]}
    if versions[("deb", "tzdata", None)] != "1:2026a-0+deb12u1":
        problems.append("sample tzdata version")
    if versions[("npm", "ansi-styles", "node_modules/wrap-ansi/node_modules/ansi-styles")] != "4.3.0":
        problems.append("sample nested ansi-styles")
    for p in problems[:40]:
        print(p, file=sys.stderr)
    if problems:
        return 1
    print(f"ok: {len(docs)} locks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
