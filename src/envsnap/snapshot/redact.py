"""Secret scrubbing and host anonymization, applied before anything is written or shown.

Two independent nets, because either alone misses things:
- by **name**: the value of any mapping entry whose key looks like a secret (``HF_TOKEN``,
  ``AWS_SECRET_ACCESS_KEY``, ``NCCL_PASSWORD``...) is replaced, whatever it looks like;
- by **shape**: any string anywhere (a PATH entry, a package URL, a process command line) is
  searched for credential formats (Hugging Face, GitHub, OpenAI, AWS, Slack, JWTs, URLs with
  ``user:password@`` or a token as userinfo, PEM/PGP private keys, signed-URL signatures, HTTP
  Basic, ``--token=...``, ``curl -u``, ``mysql -p``, ``docker login -p``) and the secret part is
  replaced, in time linear in the text (see ``_SHAPES``).

``anonymize`` is the separate ``--anonymize`` step: it masks host identity (hostname, usernames
in paths, serial numbers, device UUIDs) with stable pseudonyms, so two anonymized snapshots of
one machine still line up in a diff.
"""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Sequence
from typing import Any

import msgspec

from envsnap.snapshot.model import Snapshot

REDACTED = "<redacted>"

_SECRET_WORDS = frozenset(
    {
        "TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWORDS", "PASSWD", "PASS", "PWD",
        "PASSPHRASE", "CREDENTIAL", "CREDENTIALS", "CREDS", "AUTH", "AUTHORIZATION", "SESSION",
        "COOKIE", "COOKIES", "KEY", "KEYS", "APIKEY", "PRIVATE", "SIGNATURE", "DSN", "CONNSTR", "PW",
        "SIG", "ACCOUNTKEY",
    }
)  # fmt: skip
_SECRET_SUFFIXES = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "COOKIE")
_NAME_SPLIT = re.compile(r"[^A-Za-z0-9]+")


def is_secret_name(name: str) -> bool:
    """Whether a variable or key name suggests its value is a credential.

    Names are split into words (``HF_HUB_TOKEN`` -> HF, HUB, TOKEN), so ``TOKENIZERS_PARALLELISM``
    or ``CUDA_DEVICE_ORDER`` are not caught, while ``WANDB_API_KEY`` and ``OPENAI_APIKEY`` are.
    """
    for word in _NAME_SPLIT.split(name.upper()):
        if word in _SECRET_WORDS or (len(word) > 3 and word.endswith(_SECRET_SUFFIXES)):
            return True
    return False


# Each pattern's group "secret" (or the whole match, when there is no such group) is replaced.
#
# Linear time, always: a snapshot is untrusted and ``show``/``diff``/``tui`` re-redact every string,
# so a pattern that can restart inside the run of characters it just scanned (``\b[a-z][a-z0-9.-]*``
# on ``a.a.a.a...``, ``\bsk-[A-Za-z0-9_-]{20,}`` on ``sk-sk-sk-...``) is quadratic. So every pattern
# starts with a literal (which the regex engine finds with a fast substring search instead of
# trying every position), and where the literal may repeat inside the run it starts, a lookbehind
# *after* it (``sk-(?<![A-Za-z0-9_-]sk-)``) lets only the first one through: the runs scanned from
# different starts never overlap. tests/security checks this with megabyte-long adversarial
# strings; benchmarks/bench_redact.py measures it against a plain ``re.sub``.
_SHAPES = [
    # URL userinfo with a password: https://user:pass@host -> https://user:<redacted>@host. The user
    # may be empty (redis://:pw@host); the password runs to the *last* "@" of the authority, as
    # urllib splits it, so https://user:p@ss@host hides "p@ss", not just "p".
    r"://[^/?#\s:@]*:(?P<secret>[^/?#\s]+)@",
    # PEM and PGP private keys (to the END line, or to the end of the text when it was cut off).
    r"-----BEGIN[A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
    r"(?:-----END[A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----|$)",
    r"hf_(?<![A-Za-z0-9_]hf_)[A-Za-z0-9]{30,}",
    r"gh[pousr]_(?<![A-Za-z0-9_]gh._)[A-Za-z0-9]{30,}",
    r"github_pat_(?<![A-Za-z0-9_]github_pat_)[A-Za-z0-9_]{20,}",
    r"glpat-(?<![A-Za-z0-9_-]glpat-)[A-Za-z0-9_-]{20,}",
    r"sk-(?<![A-Za-z0-9_-]sk-)(?:proj-|ant-(?:api\d\d-)?|svcacct-)?[A-Za-z0-9_-]{20,}",
    r"[sr]k_(?<![A-Za-z0-9_].k_)(?:live|test)_[A-Za-z0-9]{16,}",
    r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA)(?<![A-Za-z0-9_]....)[0-9A-Z]{16}\b",
    r"xox[abposr]-(?<![A-Za-z0-9-]xox.-)[A-Za-z0-9-]{10,}",
    r"https://hooks\.slack\.com/services/[A-Za-z0-9/]+",
    r"AIza(?<![A-Za-z0-9_-]AIza)[0-9A-Za-z_-]{35}",
    r"pypi-AgE(?<![A-Za-z0-9_-]pypi-AgE)[A-Za-z0-9_-]{40,}",
    r"npm_(?<![A-Za-z0-9_]npm_)[A-Za-z0-9]{36}\b",
    r"eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
    # curl -u user:password, --user=user:password (a numeric uid:gid, docker run -u 1000:1000, stays)
    r"-(?<!\S-)(?:u|-user)(?:=|\s{1,16})?(?!\d+:\d+(?!\S))[^\s:\"']{0,256}:(?P<secret>[^\s\"']+)",
]

# An AWS secret access key: exactly 40 of [A-Za-z0-9/+] with upper, lower and digits. It has no
# literal to search for, so it only runs when a run of 40 such characters exists at all (a
# substring search over the text with those characters mapped to one letter).
_BARE_KEY_RE = re.compile(
    r"(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])"
    r"(?=[A-Za-z0-9/+]{0,39}[0-9])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
)
_KEY_CHARS = str.maketrans(dict.fromkeys(string.ascii_letters + string.digits + "/+", "a"))
_FORTY_KEY_CHARS = "a" * 40


def _may_hold_bare_key(text: str) -> bool:
    return len(text) >= 40 and _FORTY_KEY_CHARS in text.translate(_KEY_CHARS)


# Case-insensitive shapes, written in lower case and matched against the ASCII-lower-cased text
# (same length, so the spans carry over): a case-insensitive regex loses the fast literal search.
_FOLDED_SHAPES = [
    # A token as the whole userinfo of a non-ssh URL (https://<token>@pypi.fury.io/...): https never
    # carries a bare login name, so any length is a credential. ssh URLs (git+ssh://git@host) do...
    r"://(?<!ssh://)(?P<secret>[^/?#\s:@]+)@",
    # ... so there only a long, mixed, token-like one is.
    r"://(?=[^/\s:@]*\d)(?=[^/\s:@]*[a-z])(?P<secret>[a-z0-9_.~%-]{16,})@",
    r"bearer(?<![a-z0-9_]bearer)\s{1,16}(?P<secret>[a-z0-9._~+/-]{8,}=*)",
    # HTTP Basic credentials: base64 of user:password (a digit, "+", "/" or "=" tells it from prose).
    r"basic(?<![a-z0-9_]basic)\s{1,16}(?P<secret>(?=[a-z0-9+/]*[0-9+/=])[a-z0-9+/]{8,}={0,2})",
    r"authorization\s{0,16}[=:]\s{0,16}(?!bearer\b|basic\b)(?P<secret>[^\s\"',;&]+)",
    # Signed URLs and connection strings: S3/GCS presigned signatures and credentials, Azure SAS
    # "sig=" and storage "AccountKey=" / "SharedAccessKey=".
    r"=(?:(?<=x-amz-signature=)|(?<=x-amz-credential=)|(?<=x-amz-security-token=)|(?<=x-goog-signature=)"
    r"|(?<=x-goog-credential=)|(?<=sig=)|(?<=accountkey=)|(?<=sharedaccesskey=)"
    r"|(?<=sharedaccesssignature=))(?P<secret>[^\s\"'&;]+)",
    # --token=x, --api-key x, --passphrase=x, --pw=x inside a command line or an `sh -c` string
    r"--(?:[a-z0-9]+[-_]){0,8}(?:token|secret|password|passwd|passphrase|pass|pw"
    r"|api[-_]?key|access[-_]?key|auth)(?:=|\s+)(?P<secret>[^\s\"']+)",
    # HF_TOKEN=x, password: x inside a config string (one literal per pattern: fast search)
    r"token\s*[=:]\s*(?P<secret>[^\s\"',;&]+)",
    r"secret\s*[=:]\s*(?P<secret>[^\s\"',;&]+)",
    r"pass(?:word|wd|phrase)\s*[=:]\s*(?P<secret>[^\s\"',;&]+)",
    r"api_?key\s*[=:]\s*(?P<secret>[^\s\"',;&]+)",
    r"access_?key\s*[=:]\s*(?P<secret>[^\s\"',;&]+)",
]
_SHAPE_RES = [re.compile(p) for p in _SHAPES]
_FOLDED_RES = [re.compile(p) for p in _FOLDED_SHAPES]
_ASCII_LOWER = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}

# Every shape above contains one of these literals (in lower case), or is a bare 40-character key,
# or (``curl -u``/``--user``) both "-u" and a colon. Checking them first skips the full check for
# the hundreds of thousands of strings a big snapshot holds (names, versions, Requires-Dist lines)
# that have none; tests check this never changes the result. One alternation searched once is 5x
# faster than a substring test per literal (measured on 300k package names and versions), and
# "-u" alone would send every "python-utils" to the full check.
_ANCHORS = (
    "://", "private key", "hf_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "sk-",
    "sk_live_", "sk_test_", "rk_live_", "rk_test_", "akia", "asia", "agpa", "aida", "aroa", "anpa", "anva",
    "xox", "aiza", "pypi-", "npm_", "eyj", "bearer", "basic", "token", "secret", "passw", "api", "access",
    "auth", "sig=", "x-amz-", "x-goog-", "key=", "--pw", "--pass", "mysql", "mariadb", "login",
)  # fmt: skip
_ANCHOR_RE = re.compile("|".join(map(re.escape, _ANCHORS)))


def redact_text(text: str) -> str:
    """Replace credential-shaped parts of ``text`` with ``<redacted>``."""
    if len(text) < 8:
        return text
    lowered = text.lower()
    if (
        _ANCHOR_RE.search(lowered) is None
        and not ("-u" in lowered and ":" in text)
        and not _may_hold_bare_key(text)
    ):
        return text
    return _redact_shapes(text)


def _redact_shapes(text: str) -> str:
    """The full check, without the literal prefilter (also the reference the tests compare with)."""
    for pattern in _SHAPE_RES:
        text = pattern.sub(_replace_secret, text)
    if _may_hold_bare_key(text):
        text = _BARE_KEY_RE.sub(REDACTED, text)
    for pattern in _FOLDED_RES:
        folded = text.lower() if text.isascii() else text.translate(_ASCII_LOWER)
        spans = [_secret_span(match) for match in pattern.finditer(folded)]
        if spans:
            text = _replace_spans(text, spans)
    return _redact_dash_p(text)


def _secret_span(match: re.Match[str]) -> tuple[int, int]:
    if "secret" in match.re.groupindex and match.group("secret") is not None:
        return match.span("secret")
    return match.span()


def _replace_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each (non-overlapping, ordered) span replaced by ``<redacted>``."""
    parts, last = [], 0
    for start, end in spans:
        parts += [text[last:start], REDACTED]
        last = end
    parts.append(text[last:])
    return "".join(parts)


def _replace_secret(match: re.Match[str]) -> str:
    start, end = _secret_span(match)
    whole_start = match.start()
    return match.group(0)[: start - whole_start] + REDACTED + match.group(0)[end - whole_start :]


_WORD = re.compile(r"\S+")
_DASH_P_COMMAND = re.compile(
    r"(?:mysql|mariadb|login)(?<![^\s/'\"]mysql)(?<![^\s/'\"]mariadb)(?<![^\s/'\"]login)\w{0,8}(?!\S)"
)
_DASH_P_WINDOW = 8
"""How many words after ``mysql``/``login`` a ``-p`` password is looked for."""


def _redact_dash_p(text: str) -> str:
    """``mysql ... -pPASSWORD`` and ``docker login ... -p PASSWORD``, found word by word.

    ``-p`` alone means a port, a parent folder or a preserve flag to most tools, so only these
    commands' ``-p`` is a password. Each word is looked at once at most (a scan stops at the next
    command word), which keeps it linear on adversarial text such as ``login login login ...``.
    """
    lowered = text.lower() if text.isascii() else text.translate(_ASCII_LOWER)
    if "-p" not in lowered:
        return text
    spans: list[tuple[int, int]] = []
    for command in _DASH_P_COMMAND.finditer(lowered):
        glued = not command.group().startswith("login")
        words = _WORD.finditer(text, command.end())
        for _ in range(_DASH_P_WINDOW):
            word = next(words, None)
            if word is None or _DASH_P_COMMAND.fullmatch(lowered, word.start(), word.end()):
                break
            value = word.group()
            if value == "-p":
                following = next(words, None)
                if following is not None:
                    spans.append(following.span())
                break
            if glued and value.startswith("-p") and len(value) > 2:
                spans.append((word.start() + 2, word.end()))
                break
    return _replace_spans(text, spans) if spans else text


_ENV_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def redact_argv(argv: Sequence[str]) -> list[str]:
    """Redact a command line item by item, and the values of secret-named options.

    Shape alone misses ``--password hunter2``: the value is a separate item that looks like any
    word. So besides ``redact_text`` on every item, the item after an option whose name passes
    ``is_secret_name`` (dashes stripped: ``--api-key``, ``--hf-token``, ``--pass``; not ``-p``) is
    replaced whole, as is the value of ``--name=value`` and of an env(1)-style ``NAME=value``
    with such a name. Over-redacting a flag's neighbour (``--no-auth train.py``) is the price of
    never writing a password that follows one.
    """
    redacted: list[str] = []
    after_secret_option = False
    for item in argv:
        if after_secret_option:
            redacted.append(REDACTED)
        else:
            name, sep, value = item.partition("=")
            option = name.startswith("-")
            named = option or _ENV_ASSIGNMENT.fullmatch(name) is not None
            if sep and value and named and is_secret_name(name.lstrip("-")):
                redacted.append(f"{name}={REDACTED}")
            else:
                redacted.append(redact_text(item))
        # Judged on the raw item, so `--token --password x` hides both following items.
        after_secret_option = item.startswith("-") and "=" not in item and is_secret_name(item.lstrip("-"))
    return _redact_argv_context(list(argv), redacted)


_USER_PASS = re.compile(r"(?P<user>[^:]*):(?P<secret>.+)")
_UID_GID = re.compile(r"\d+:\d+")


def _redact_argv_context(argv: list[str], redacted: list[str]) -> list[str]:
    """Items secret only by their neighbours: ``curl -u user:pw``, ``mysql -pPW``, ``login -p PW``."""
    window, glued = 0, False
    for index, item in enumerate(argv):
        following = argv[index + 1] if index + 1 < len(argv) else None
        if item in ("-u", "--user") and following is not None and not _UID_GID.fullmatch(following):
            found = _USER_PASS.fullmatch(following)
            if found:
                redacted[index + 1] = f"{found.group('user')}:{REDACTED}"
        base = item.rsplit("/", 1)[-1].lower()
        if _DASH_P_COMMAND.fullmatch(base):
            window, glued = _DASH_P_WINDOW, not base.startswith("login")
            continue
        if window <= 0:
            continue
        window -= 1
        if item == "-p" and following is not None:
            redacted[index + 1] = REDACTED
            window = 0
        elif glued and item.startswith("-p") and len(item) > 2:
            redacted[index] = "-p" + REDACTED
            window = 0
    return redacted


def redact_value(value: Any, key: str | None = None) -> Any:
    """Redact a JSON-like value; entries under secret-looking keys are replaced whole."""
    if key is not None and is_secret_name(key) and isinstance(value, str) and value:
        return REDACTED
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: redact_value(v, k if isinstance(k, str) else None) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(v) for v in value]
    return value


def redact_strings(value: Any) -> Any:
    """Every string in a JSON-like value redacted by shape; keys (our own field names) left alone.

    For envsnap's own documents read back from disk (a bundle's manifest, a verify report): the
    name rule would hide a module ``key``; what an edited file added is caught by its shape.
    """
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: redact_strings(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_strings(v) for v in value]
    return value


def _without_mapping_names(value: Any) -> Any:
    """Redact, applying the name rule only inside free-form maps (env vars, build info, config).

    Model field names such as ``pci_bus_id`` are ours, not secrets; only maps that hold foreign
    keys (``environment.variables``, ``frameworks.*.config``/``build_info``) get the name rule.
    """
    if isinstance(value, dict):
        return {
            k: (
                redact_value(v) if k in _FREE_FORM_MAPS and isinstance(v, dict) else _without_mapping_names(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [_without_mapping_names(v) for v in value]
    if isinstance(value, str):
        return redact_text(value)
    return value


_FREE_FORM_MAPS = frozenset({"variables", "config", "build_info"})


def redact_snapshot(snapshot: Snapshot) -> Snapshot:
    """Return the snapshot with every secret replaced by ``<redacted>``."""
    data = _without_mapping_names(msgspec.to_builtins(snapshot))
    return msgspec.convert(data, Snapshot)


# ---------------------------------------------------------------------------- anonymize

_USER_IN_PATH = re.compile(r"(?P<base>/home/|/Users/|[A-Za-z]:\\Users\\)(?P<user>[^/\\\s:;\"']+)")
_IDENTITY_FIELDS = frozenset({"serial", "uuid"})


def mask_user_paths(text: str, replacement: str = "~") -> str:
    """Replace the user name in home-directory paths (``/home/alice/x`` -> ``/home/~/x``)."""
    return _USER_IN_PATH.sub(lambda m: m.group("base") + replacement, text)


def pseudonym(kind: str, value: str) -> str:
    """A stable stand-in for an identifying value: same input, same pseudonym."""
    digest = hashlib.sha256(f"envsnap:{kind}:{value}".encode()).hexdigest()[:10]
    return f"{kind}-{digest}"


def _anon_uuid(value: str) -> str:
    prefix, _, _ = value.partition("-")
    tag = prefix if prefix in ("GPU", "MIG") else "uuid"
    return f"{tag}-anon-{pseudonym('id', value).split('-', 1)[1]}"


def anonymize(snapshot: Snapshot) -> Snapshot:
    """Mask hostname, usernames in paths, serials and UUIDs with stable pseudonyms."""
    hostname = snapshot.host.hostname if snapshot.host is not None else None
    host_alias = pseudonym("host", hostname) if hostname else None

    def text(value: str) -> str:
        value = _USER_IN_PATH.sub(lambda m: m.group("base") + pseudonym("user", m.group("user")), value)
        if hostname and len(hostname) >= 3:
            value = value.replace(hostname, host_alias or "")
        return value

    def walk(value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [walk(v) for v in value]
        if isinstance(value, str):
            if key in _IDENTITY_FIELDS:
                return _anon_uuid(value) if key == "uuid" else pseudonym("serial", value)
            return text(value)
        return value

    data = walk(msgspec.to_builtins(snapshot))
    data["meta"]["anonymized"] = True
    if host_alias:
        data["meta"]["host_alias"] = host_alias
        data["host"]["hostname"] = host_alias
    return msgspec.convert(data, Snapshot)
