"""crawl_main.py — what the crawl tests share: run one test's scenario
against the scenario file's npm tree served by the fixture nginx, in a
scratch directory kept when CRAWL_KEEP is set; SKIP (77) without nginx."""
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "fixtures"))
import servers  # noqa: E402


def run(doc, prefix, scn, scenario):
    """main() of a crawl test: scenario(envlock, work, mirror) -> status."""
    if len(sys.argv) != 2:
        print(doc)
        return 2
    envlock = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix=prefix)
    try:
        try:
            cm = servers.mirror([scn], verdaccio=False, workdir=os.path.join(work, "m"), apt=False)
            m = cm.__enter__()
        except (servers.ServerError, OSError) as e:
            print("SKIP: fixture nginx unavailable: %s" % e)
            return 77
        try:
            return scenario(envlock, work, m)
        finally:
            cm.__exit__(None, None, None)
    finally:
        if os.environ.get("CRAWL_KEEP"):
            print("kept " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
