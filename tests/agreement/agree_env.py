"""What the agreement tests need from a corpus scenario beyond the scenario
suite's own setup: the spec's requests per ecosystem (read with PyYAML,
Debian's python3-yaml; callers skip when it is missing), the served URL of
each index the spec names, the apt sources, and the lock's packages as
records. The test catalog, the scenario's options, the file:// mirror
arguments, the resolve itself and the lock projection are the scenario
runner's (tests/scenarios/run_scenarios.py), imported here as `rs`, so the
agreement tests resolve exactly as the scenario suite does.

Nothing here knows about pip, npm or apt-get; agree.py does."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(REPO, "tests", "fixtures")
SCENARIO_DIR = os.path.join(REPO, "corpus", "scenarios")
sys.path.insert(0, FIXTURES)
sys.path.insert(0, os.path.join(REPO, "tests", "scenarios"))
import build_mirror  # noqa: E402
import run_scenarios as rs  # noqa: E402
import scenario as scn  # noqa: E402

try:
    import yaml
except ImportError:  # the callers skip (77) when they need it
    yaml = None

# The test catalog's defaults (rs.parse_options): python-cpu 2026.09.
PYTHON = "3.13.7"
PLATFORM = "manylinux_2_36_x86_64"


def load_scenarios():
    """Every scenario under corpus/scenarios that parses, in file-name order
    (one being edited must not take the others down: it is reported on
    stderr and left out)."""
    out = []
    for name in sorted(os.listdir(SCENARIO_DIR)):
        if name.endswith(".scn"):
            try:
                out.append(scn.parse(os.path.join(SCENARIO_DIR, name)))
            except scn.ScenarioError as e:
                sys.stderr.write("agreement: %s (left out)\n" % e)
    return out


def spec_doc(sc):
    """The scenario's spec as a Python object (YAML), or None without one."""
    text = sc.spec_text
    if text is None or yaml is None:
        return None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None


def _packages(doc):
    if not isinstance(doc, dict):
        return {}
    spec = doc.get("spec")
    pk = spec.get("packages") if isinstance(spec, dict) else None
    return pk if isinstance(pk, dict) else {}


def spec_requests(doc):
    """{'pypi': [...], 'npm': [...], 'deb': [...]} as the spec writes them
    (Environment format). Each list is what the user asked for, in order."""
    pk = _packages(doc)
    out = {"pypi": [], "npm": [], "deb": [], "pypi-constraints": [], "pypi-indexes": [],
           "npm-registry": None}
    py = pk.get("python")
    if isinstance(py, dict):
        out["pypi"] = [str(x) for x in py.get("dependencies") or []]
        out["pypi-constraints"] = [str(x) for x in py.get("constraints") or []]
        out["pypi-indexes"] = [str(x) for x in py.get("indexes") or []]
    elif isinstance(py, list):
        out["pypi"] = [str(x) for x in py]
    node = pk.get("node")
    if isinstance(node, dict):
        out["npm"] = [str(x) for x in node.get("dependencies") or []]
        out["npm-registry"] = node.get("registry")
    elif isinstance(node, list):
        out["npm"] = [str(x) for x in node]
    system = pk.get("system")
    if isinstance(system, dict):
        out["deb"] = [str(x) for x in system.get("apt") or []]
    return out


def pypi_index_urls(manifest, spec_indexes, base_url):
    """The served URL of each index the spec names (in the spec's order);
    the public index when it names none."""
    base_url = base_url.rstrip("/")
    by_url = {}
    for name, url in (manifest.get("pypi-indexes") or {}).items():
        by_url[(url or build_mirror.DEFAULT_PYPI_URL).rstrip("/")] = "%s/pypi/%s/simple/" % (base_url, name)
    out = []
    for u in spec_indexes or [build_mirror.DEFAULT_PYPI_URL]:
        served = by_url.get(u.rstrip("/"))
        if served is None:
            raise KeyError("the spec's index %s is not in the mirror" % u)
        out.append(served)
    return out


def apt_sources(sc, manifest):
    """[(suite, [components])] as the test catalog lists them."""
    return [(name, sc.apt_suites.get(name, {}).get("components", "main").split(","))
            for name in (manifest.get("apt-suites") or {})]


def lock_packages(lock_text):
    """The lock's packages (through the scenario suite's projection):
    [{ecosystem, name, version, path, extras, base}]."""
    out = []
    for line in rs.project(lock_text):
        parts = line.split()
        attrs = dict(p.split("=", 1) for p in parts[3:] if "=" in p)
        out.append({"ecosystem": parts[0], "name": parts[1], "version": parts[2],
                    "path": attrs.get("path"),
                    "extras": [x for x in attrs.get("extras", "").split(",") if x],
                    "base": "base" in parts[3:]})
    return out
