"""A recording stand-in for the `modal` package (tests/plan/plan_proof.py).

A plan's modal_image.py builds a `modal.Image` by chaining calls on it; this
module offers the same entry points with the same signatures (positional and
keyword-only parameters as Modal's client declares them), builds nothing and
records every call instead, so the test can compare the chain with the lock.
An Image is immutable, as Modal's is: each method returns a new Image whose
`calls` are the old ones plus this one. A method Modal's Image has but this
stub does not model, or any other attribute, is still recorded, marked
`unknown`, so that the test reports it instead of passing over it.

    import modal
    img = modal_image.image("123.dkr.ecr.example/r", "sec")
    img.calls   # [{"method": "from_aws_ecr", "args": [...], "kwargs": {...}}, ...]
    modal.record(img)   # the same, JSON-ready (Secrets and paths as plain values)
"""

import os

__version__ = "0.0-stub"


class Secret:
    """A named secret: only its name (and how it was made) is recorded."""

    def __init__(self, how, name=None, values=None):
        self.how = how
        self.name = name
        self.values = values

    @classmethod
    def from_name(cls, name, *, environment_name=None, required_keys=()):
        if not isinstance(name, str) or not name:
            raise TypeError("Secret.from_name: name must be a non-empty string, not %r" % (name,))
        return cls("from_name", name=name)

    @classmethod
    def from_dict(cls, env_dict=None):
        return cls("from_dict", values=dict(env_dict or {}))

    def as_json(self):
        out = {"secret": self.how}
        if self.name is not None:
            out["name"] = self.name
        if self.values is not None:
            out["keys"] = sorted(self.values)
        return out


def _plain(v):
    if isinstance(v, Secret):
        return v.as_json()
    if isinstance(v, Image):
        return {"image": len(v.calls)}
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if v is None or isinstance(v, (str, int, float, bool)):
        return v
    return repr(v)


def _strings(items, what):
    """Modal's *packages / *commands: strings, or lists of strings, flattened."""
    out = []
    for x in items:
        if isinstance(x, (list, tuple)):
            out += _strings(x, what)
        elif isinstance(x, str):
            out.append(x)
        else:
            raise TypeError("%s: expected strings, got %r" % (what, x))
    return out


class Image:
    def __init__(self, calls):
        self.calls = calls

    def _then(self, method, args=(), kwargs=None, unknown=False):
        call = {"method": method, "args": _plain(list(args)), "kwargs": _plain(dict(kwargs or {}))}
        if unknown:
            call["unknown"] = True
        return Image(self.calls + [call])

    # ---- constructors ----

    @staticmethod
    def from_aws_ecr(tag, secret=None, *, setup_dockerfile_commands=(), force_build=False,
                     add_python=None, **kwargs):
        if not isinstance(tag, str):
            raise TypeError("from_aws_ecr: tag must be a string")
        kw = {"secret": secret, "setup_dockerfile_commands": list(setup_dockerfile_commands),
              "force_build": force_build, "add_python": add_python}
        kw.update(kwargs)
        return Image([])._then("from_aws_ecr", [tag], kw)

    @staticmethod
    def from_registry(tag, *, secret=None, setup_dockerfile_commands=(), force_build=False,
                      add_python=None, **kwargs):
        kw = {"secret": secret, "setup_dockerfile_commands": list(setup_dockerfile_commands),
              "add_python": add_python}
        kw.update(kwargs)
        return Image([])._then("from_registry", [tag], kw)

    @staticmethod
    def debian_slim(python_version=None, force_build=False):
        return Image([])._then("debian_slim", [python_version], {})

    # ---- layers ----

    def env(self, vars):
        if not isinstance(vars, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in vars.items()):
            raise TypeError("Image.env: expected a dict of str to str, got %r" % (vars,))
        return self._then("env", [vars])

    def apt_install(self, *packages, force_build=False, secrets=(), gpu=None):
        return self._then("apt_install", _strings(packages, "apt_install"),
                          {"secrets": list(secrets), "gpu": gpu, "force_build": force_build})

    def run_commands(self, *commands, secrets=(), gpu=None, force_build=False, env=None):
        return self._then("run_commands", _strings(commands, "run_commands"),
                          {"secrets": list(secrets), "gpu": gpu, "force_build": force_build, "env": env})

    def add_local_file(self, local_path, remote_path, *, copy=False):
        if not isinstance(remote_path, str):
            raise TypeError("add_local_file: remote_path must be a string")
        return self._then("add_local_file", [local_path, remote_path], {"copy": copy})

    def add_local_dir(self, local_path, remote_path, *, copy=False, ignore=()):
        return self._then("add_local_dir", [local_path, remote_path], {"copy": copy, "ignore": list(ignore)})

    def workdir(self, path):
        return self._then("workdir", [path])

    def entrypoint(self, entrypoint_commands):
        if not isinstance(entrypoint_commands, list) or not all(isinstance(x, str) for x in entrypoint_commands):
            raise TypeError("Image.entrypoint: expected a list of strings")
        return self._then("entrypoint", [entrypoint_commands])

    def cmd(self, cmd):
        return self._then("cmd", [cmd])

    def dockerfile_commands(self, *dockerfile_commands, context_files=None, secrets=(), gpu=None,
                            context_mount=None, force_build=False, ignore=()):
        return self._then("dockerfile_commands", _strings(dockerfile_commands, "dockerfile_commands"),
                          {"context_files": context_files or {}, "secrets": list(secrets)})

    def pip_install(self, *packages, **kwargs):
        return self._then("pip_install", _strings(packages, "pip_install"), kwargs)

    def uv_pip_install(self, *packages, **kwargs):
        return self._then("uv_pip_install", _strings(packages, "uv_pip_install"), kwargs)

    def pip_install_from_requirements(self, requirements_txt, **kwargs):
        return self._then("pip_install_from_requirements", [requirements_txt], kwargs)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)

        def unknown(*args, **kwargs):
            return self._then(name, args, kwargs, unknown=True)
        return unknown


def record(image):
    """The chain of calls that built `image`, as JSON-ready values."""
    if not isinstance(image, Image):
        raise TypeError("image() returned %r, not a modal.Image" % (image,))
    return image.calls


# Module-level names a module may touch while defining its image; recorded
# nowhere, since they build nothing.
class App:
    def __init__(self, name=None, **kwargs):
        self.name = name
        self.kwargs = kwargs


def __getattr__(name):
    raise AttributeError("the modal stub has no %r (tests/plan/modal_stub/modal.py)" % name)
