#!/usr/bin/env python3
"""A Python client of gensyn-node for ML engineers: submit a training task, follow it to
settlement, fetch the trained model from the solver's store (checked against what the
solver committed on chain) and load it into PyTorch.

  submit       --spec FILE [--ws URL] [--seed //Alice] [--follow] [--timeout SECONDS]
  fetch-model  --task ID --at BLOCK [--ws URL] [--out FILE]
  evaluate     --spec FILE --model FILE --data BUNDLE

The spec file is the project's JSON form (examples/*.json); it is converted field by
field against the `TaskSpec` type in the chain's metadata, so a wrong field is named
before anything is sent, and a spec the chain refuses comes back as its pallet error
(`tasks.SpecLinearInputMismatch`), with nothing held. A settled task leaves storage:
fetch its model at the block of its `ResultSubmitted` event (`submit --follow` prints
it as `resultBlock`), or of its `TaskCompleted` event, which carries the result. `evaluate` rebuilds the spec's model as a `torch.nn.Sequential`,
loads the checkpoint's parameters and reports loss and accuracy on an IDX bundle
(docs/data-format.md).

Each command prints progress on stderr and one `RESULT <json>` line on stdout (and,
with --follow, an `OUTCOME <json>` line); on failure `ok` is false, `error` names what
failed, and the exit status is 1. Needs `substrate-interface` (chain commands),
`safetensors` and `torch` (`evaluate`); scripts/setup-torch.sh installs all three.
"""

import argparse
import json
import os
import struct
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gensyn_data  # noqa: E402  (the data and checkpoint-root rules, same folder)

# Largest journal and blob accepted (as the workers' proof store client).
MAX_JOURNAL = 16 * 1024 * 1024
MAX_BLOB = 256 * 1024 * 1024
# Events that end a task's life.
ENDS = ("TaskCompleted", "TaskFailed", "TaskCancelled")
# Fields serde fills in when the JSON leaves them out (`#[serde(default)]` in spec.rs).
SERDE_DEFAULTS = {"loss": "softmax_cross_entropy", "lr_schedule": {"type": "constant"}}
MAX_URI_LEN = 256
MAX_LAYERS = 32


class Refusal(Exception):
    """A failure with the name RESULT reports as `error`."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def log(line):
    print(line, file=sys.stderr, flush=True)


def result(tag, value):
    print(f"{tag} {json.dumps(value)}", flush=True)


# ---- The spec: the project's JSON to the chain's type, by the metadata ----------------


def f32_bits(x):
    """The IEEE-754 single-precision bits of `x`, rounded to the nearest f32."""
    return struct.unpack("<I", struct.pack("<f", float(x)))[0]


def snake_case(name):
    """serde's `rename_all = "snake_case"` of a variant name (`MaxPool2d` -> `max_pool2d`)."""
    return "".join(("_" if i else "") + c.lower() if c.isupper() else c for i, c in enumerate(name))


def _hash32(v, path):
    text = v[2:] if isinstance(v, str) and v.startswith("0x") else v
    if not isinstance(text, str) or len(text) != 64 or any(c not in "0123456789abcdefABCDEF" for c in text):
        raise Refusal("BadSpec", f"{path}: expected 32 bytes as 64 hex digits, got {v!r}")
    return "0x" + text.lower()


def _uri(v, path):
    if not isinstance(v, str):
        raise Refusal("BadSpec", f"{path}: expected a string, got {v!r}")
    raw = v.encode("utf-8")
    if len(raw) > MAX_URI_LEN:
        raise Refusal("BadSpec", f"{path}: URI longer than {MAX_URI_LEN} bytes")
    return "0x" + raw.hex()


def _f32(v, path):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise Refusal("BadSpec", f"{path}: expected a number, got {v!r}")
    return f32_bits(v)


# Leaf types whose JSON form differs from their SCALE form, by their Rust name.
LEAVES = {"F32Bits": _f32, "Hash32": _hash32, "Uri": _uri}


class SpecConverter:
    """Walks the chain's type registry to turn a spec's JSON into substrate-interface
    values: structs refuse unknown and missing fields (serde's `deny_unknown_fields`),
    enums are a snake_case string (unit variants) or an object tagged by `type`."""

    def __init__(self, substrate):
        substrate.init_runtime()
        types = substrate.metadata.portable_registry.value_serialized["types"]
        self.types = {t["id"]: t["type"] for t in types}

    def convert(self, type_id, value, path="spec"):
        ty = self.types[type_id]
        name = ty["path"][-1] if ty["path"] else None
        if name in LEAVES:
            return [LEAVES[name](value, path)]
        d = ty["def"]
        if "composite" in d:
            fields = d["composite"]["fields"]
            if len(fields) == 1 and not fields[0].get("name"):
                # A one-field tuple struct (`BoundedVec(Vec<Layer>)`): a one-item tuple.
                return [self.convert(fields[0]["type"], value, path)]
            return self.fields(fields, value, path)
        if "variant" in d:
            return self.variant(d["variant"]["variants"], value, path)
        if "sequence" in d:
            if not isinstance(value, list):
                raise Refusal("BadSpec", f"{path}: expected a list, got {value!r}")
            if path.endswith(".layers") and len(value) > MAX_LAYERS:
                raise Refusal("BadSpec", f"{path}: at most {MAX_LAYERS} items, got {len(value)}")
            return [self.convert(d["sequence"]["type"], v, f"{path}[{i}]") for i, v in enumerate(value)]
        if "primitive" in d:
            return self.primitive(d["primitive"], value, path)
        raise Refusal("BadSpec", f"{path}: type {list(d)} is not supported in specs")

    def fields(self, fields, value, path):
        if not isinstance(value, dict):
            raise Refusal("BadSpec", f"{path}: expected an object, got {value!r}")
        names = [f["name"] for f in fields]
        unknown = [k for k in value if k not in names]
        if unknown:
            raise Refusal("BadSpec", f"{path}: unknown field '{unknown[0]}', expected one of: {', '.join(names)}")
        out = {}
        for f in fields:
            v = value.get(f["name"], SERDE_DEFAULTS.get(f["name"]))
            if v is None:
                raise Refusal("BadSpec", f"{path}: missing field '{f['name']}'")
            out[f["name"]] = self.convert(f["type"], v, f"{path}.{f['name']}")
        return out

    def variant(self, variants, value, path):
        tagged = isinstance(value, dict)
        name = value.get("type") if tagged else value
        by_name = {snake_case(v["name"]): v for v in variants}
        v = by_name.get(name) if isinstance(name, str) else None
        if v is None:
            raise Refusal("BadSpec", f"{path}: unknown variant {name!r}, expected one of: {', '.join(by_name)}")
        if not v.get("fields"):
            extra = [k for k in value if k != "type"] if tagged else []
            if extra:
                raise Refusal("BadSpec", f"{path}: unknown field '{extra[0]}' in '{name}', which has none")
            return v["name"]
        if not tagged:
            raise Refusal("BadSpec", f'{path}: \'{name}\' needs its fields: {{"type": "{name}", ...}}')
        fields = {k: x for k, x in value.items() if k != "type"}
        return {v["name"]: self.fields(v["fields"], fields, f"{path}({name})")}

    @staticmethod
    def primitive(prim, value, path):
        if prim.startswith("u") and prim[1:].isdigit():
            bits = int(prim[1:])
            if isinstance(value, str) and value.isdigit():
                value = int(value)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << bits:
                raise Refusal("BadSpec", f"{path}: expected a u{bits}, got {value!r}")
            return value
        if prim == "bool" and isinstance(value, bool):
            return value
        raise Refusal("BadSpec", f"{path}: expected {prim}, got {value!r}")


def read_spec(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise Refusal("BadArgument", f"cannot read spec {path}: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise Refusal("BadSpec", f"{path}: malformed JSON at line {e.lineno}, column {e.colno}: {e.msg}") from e


# ---- The chain ---------------------------------------------------------------------


def connect(ws):
    from substrateinterface import SubstrateInterface

    try:
        return SubstrateInterface(url=ws)
    except Exception as e:  # noqa: BLE001  (any connection failure is reported alike)
        raise Refusal("NodeUnreachable", f"could not reach a node at {ws}: {e}") from e


def exact(value):
    """Integers as decimal strings, as the JS scripts print them (a balance in planck can
    exceed what a JSON reader keeps exact)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        return {k: exact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [exact(v) for v in value]
    return value


def task_events(substrate, block_hash, task_id):
    """The task's `Tasks` events in a block, as (name, fields)."""
    out = []
    for record in substrate.get_events(block_hash):
        event = record.value["event"]
        fields = event.get("attributes")
        if event["module_id"] == "Tasks" and isinstance(fields, dict) and fields.get("id") == task_id:
            out.append((event["event_id"], exact(fields)))
    return out


def follow(substrate, task_id, from_block, timeout):
    """Prints the task's events block by block (finalized) until one ends it; returns the
    outcome and the block of its `ResultSubmitted` event (None when none)."""
    deadline = time.monotonic() + timeout
    next_block, result_block = from_block + 1, None
    while time.monotonic() < deadline:
        head = substrate.get_block_number(substrate.get_chain_finalised_head())
        for n in range(next_block, head + 1):
            for name, fields in task_events(substrate, substrate.get_block_hash(n), task_id):
                log(f"#{n} tasks.{name} {json.dumps(fields)}")
                if name == "ResultSubmitted":
                    result_block = n
                if name in ENDS:
                    return {"end": name, "blockNumber": n, "data": fields}, result_block
        next_block = head + 1
        time.sleep(1)
    raise Refusal("Timeout", f"task {task_id} did not end within {timeout} s")


def dispatch_error(substrate, receipt):
    """`pallet.Error` and its docs for a failed extrinsic (the pallet from its index)."""
    err = receipt.error_message if isinstance(receipt.error_message, dict) else {}
    pallet = "error"
    for record in receipt.triggered_events:
        event = record.value["event"]
        if event["event_id"] == "ExtrinsicFailed":
            module = (event["attributes"].get("dispatch_error") or {}).get("Module")
            if isinstance(module, dict):
                pallet = next((p.name for p in substrate.metadata.pallets if p["index"] == module["index"]), pallet)
    return f"{pallet.lower()}.{err.get('name', 'Error')}", " ".join(err.get("docs", []))


def submit(args):
    from substrateinterface import Keypair

    spec_json = read_spec(args.spec)
    substrate = connect(args.ws)
    call_fn = substrate.get_metadata_call_function("Tasks", "submit_task")
    spec = SpecConverter(substrate).convert(call_fn.value["fields"][0]["type"], spec_json)
    signer = Keypair.create_from_uri(args.seed)
    log(f"chain {substrate.chain}; submitter {signer.ss58_address}")
    call = substrate.compose_call("Tasks", "submit_task", {"spec": spec})
    extrinsic = substrate.create_signed_extrinsic(call=call, keypair=signer)
    receipt = substrate.submit_extrinsic(extrinsic, wait_for_finalization=True)
    block = substrate.get_block_number(receipt.block_hash)
    log(f"finalized in block #{block} {receipt.block_hash}")
    if not receipt.is_success:
        name, docs = dispatch_error(substrate, receipt)
        raise Refusal(name, f"{name}: {docs}".strip())
    submitted = next(
        (e.value["event"]["attributes"] for e in receipt.triggered_events
         if e.value["event"]["module_id"] == "Tasks" and e.value["event"]["event_id"] == "TaskSubmitted"),
        None,
    )
    if submitted is None:
        raise Refusal("Error", "the submission raised no TaskSubmitted event")
    task_id = submitted["id"]
    out = {"ok": True, "task": task_id, "blockNumber": block, "escrow": str(submitted.get("escrow")),
           # The spec as sent: its SCALE bytes (the call's, after pallet and call index).
           "spec": "0x" + bytes(call.data.data[2:]).hex()}
    log(f"task {task_id}: escrow held {out['escrow']} planck")
    result("RESULT", out)
    if args.follow:
        outcome, result_block = follow(substrate, task_id, block, args.timeout)
        outcome["resultBlock"] = result_block
        result("OUTCOME", outcome)


# ---- The model: from the solver's store, checked against the chain --------------------


def get_capped(url, limit):
    try:
        with urllib.request.urlopen(url, timeout=300) as res:
            if int(res.headers.get("content-length") or 0) > limit:
                raise Refusal("TooLarge", f"{url} is larger than {limit} bytes")
            body = res.read(limit + 1)
    except OSError as e:
        raise Refusal("StoreUnreachable", f"cannot fetch {url}: {e}") from e
    if len(body) > limit:
        raise Refusal("TooLarge", f"{url} is larger than {limit} bytes")
    return body


def from_hex(text):
    text = text[2:] if isinstance(text, str) and text.startswith("0x") else text
    try:
        raw = bytes.fromhex(text)
    except (TypeError, ValueError):
        return None
    return raw if len(raw) == 32 else None


def text_of(value):
    """A byte string from storage (hex with `0x`, or already text) as UTF-8 text."""
    if isinstance(value, str) and value.startswith("0x"):
        return bytes.fromhex(value[2:]).decode("utf-8", "replace")
    return value if isinstance(value, str) else bytes(value).decode("utf-8", "replace")


def committed_result(substrate, task_id, at):
    block_hash = substrate.get_block_hash(at)
    if block_hash is None:
        raise Refusal("BadArgument", f"the node knows no block #{at}")
    task = substrate.query("Tasks", "Tasks", [task_id], block_hash=block_hash).value
    if task is None:
        # A task settled in this block: its TaskCompleted event carries the result.
        for name, fields in task_events(substrate, block_hash, task_id):
            r = fields.get("result") if name == "TaskCompleted" else None
            if r:
                return {"url": text_of(r["url"]), "root": from_hex(r["checkpoint_root"]),
                        "final": from_hex(r["final_hash"]), "checkpoints": int(r["checkpoints"])}
        raise Refusal("TaskNotFound", f"task {task_id} is not live at block #{at}; a settled task leaves "
                      "storage: pass --at with the block of its ResultSubmitted or TaskCompleted event")
    r = task.get("result")
    if r is None:
        raise Refusal("NoResult", f"task {task_id} has no result yet at block #{at}")
    # The store's URL: the solver's published endpoint, then the run's location (as the
    # runtime API's task view joins them).
    profile = substrate.query("Stake", "Profiles", [task["solver"]], block_hash=block_hash).value
    if profile is None:
        raise Refusal("StoreUnreachable", f"the solver of task {task_id} publishes no endpoint")
    url = text_of(profile["endpoint"]) + text_of(r["location"])
    return {"url": url, "root": from_hex(r["checkpoint_root"]), "final": from_hex(r["final_hash"]),
            "checkpoints": int(r["checkpoints"])}


def fetch_model(args):
    substrate = connect(args.ws)
    c = committed_result(substrate, args.task, args.at)
    log(f"task {args.task} at block #{args.at}: {c['checkpoints']} checkpoints, store {c['url']}")
    journal = json.loads(get_capped(c["url"], MAX_JOURNAL))
    entries = journal.get("checkpoints") if isinstance(journal, dict) else None
    if not isinstance(entries, list) or len(entries) != c["checkpoints"] or not entries:
        raise Refusal("JournalMismatch", f"the journal does not list the {c['checkpoints']} committed checkpoints")
    leaves = [from_hex(e.get("state_hash")) for e in entries]
    if None in leaves or gensyn_data.checkpoint_root(leaves) != c["root"] or leaves[-1] != c["final"]:
        raise Refusal("JournalMismatch", "the journal's checkpoints are not the committed root's")
    name = from_hex(entries[-1].get("blob"))
    cut = c["url"].rfind("/run/")
    if name is None or cut <= 0:
        raise Refusal("JournalMismatch", "the journal names no blob for its last checkpoint")
    blob = get_capped(f"{c['url'][:cut]}/blob/{name.hex()}", MAX_BLOB)
    if gensyn_data.blake2_256(blob) != name:
        raise Refusal("BlobHashMismatch", f"blob 0x{name.hex()} does not hash to its name")
    out = args.out or f"task-{args.task}-model.safetensors"
    with open(out, "wb") as f:
        f.write(blob)
    log(f"model: {len(blob)} bytes, checked, written to {out}")
    result("RESULT", {"ok": True, "task": args.task, "out": out, "bytes": len(blob),
                      "step": entries[-1].get("step"), "blob": "0x" + name.hex()})


def torch_model(spec):
    """The spec's model as a `torch.nn.Sequential`, layer for layer."""
    from torch import nn

    made = {
        "linear": lambda l: nn.Linear(l["in_features"], l["out_features"]),
        "conv2d": lambda l: nn.Conv2d(l["in_channels"], l["out_channels"], l["kernel"], l["stride"], l["padding"]),
        "relu": lambda l: nn.ReLU(),
        "max_pool2d": lambda l: nn.MaxPool2d(l["kernel"], l["stride"]),
        "flatten": lambda l: nn.Flatten(),
    }
    layers = [l if isinstance(l, dict) else {"type": l} for l in spec["model"]["layers"]]
    unknown = sorted({l["type"] for l in layers} - set(made))
    if unknown:
        # A language model's layers: the chain takes no such task yet, so none has a model
        # here (off chain, `gensyn-ml evaluate` measures a language model's run).
        raise Refusal("BadSpec", f"layers {', '.join(unknown)}: only image models are evaluated")
    return nn.Sequential(*(made[l["type"]](l) for l in layers))


def load_checkpoint(model, path):
    """Loads a checkpoint's `param.NN` tensors (per trainable layer its weight, then its
    bias) into `model`; returns the training step it was taken at."""
    import torch
    from safetensors.torch import load_file

    tensors = load_file(path)
    params = list(model.parameters())
    if len(params) != sum(1 for k in tensors if k.startswith("param.")):
        raise Refusal("ModelMismatch", f"{path} does not hold this model's {len(params)} parameters")
    with torch.no_grad():
        for i, p in enumerate(params):
            t = tensors[f"param.{i:02}"]
            if t.shape != p.shape:
                raise Refusal("ModelMismatch", f"param.{i:02} is {tuple(t.shape)}, the model's {tuple(p.shape)}")
            p.copy_(t)
    return int(tensors["step"][0]) if "step" in tensors else None


def evaluate(args):
    import torch

    spec = read_spec(args.spec)
    model = torch_model(spec)
    step = load_checkpoint(model, args.model)
    shape = spec["data"]["input"]
    try:
        with open(args.data, "rb") as f:
            data = f.read()
        n, _, _, labels = gensyn_data.read_bundle(data, args.data)
        _, start, end = gensyn_data.parse_idx(data, 0, args.data)
    except (OSError, gensyn_data.DataError) as e:
        raise Refusal("BadData", str(e)) from e
    # Pixels as the workers read them: a byte b is b / 255.
    x = torch.frombuffer(bytearray(data[start:end]), dtype=torch.uint8).float().div(255.0)
    x = x.reshape(n, shape["channels"], shape["height"], shape["width"])
    y = torch.frombuffer(bytearray(labels), dtype=torch.uint8).long()
    with torch.no_grad():
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits, y).item()
        accuracy = (logits.argmax(dim=1) == y).float().mean().item()
    log(f"step {step}: loss {loss:.4f}, accuracy {accuracy:.4f} on {n} samples")
    result("RESULT", {"ok": True, "step": step, "samples": n, "loss": loss, "accuracy": accuracy})


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("submit", help="submit a task spec (JSON), optionally following it")
    s.add_argument("--spec", required=True)
    s.add_argument("--ws", default="ws://127.0.0.1:9944")
    s.add_argument("--seed", default="//Alice")
    s.add_argument("--follow", action="store_true")
    s.add_argument("--timeout", type=float, default=3600.0, help="seconds to follow (default 3600)")
    f = sub.add_parser("fetch-model", help="fetch and check a task's trained model")
    f.add_argument("--task", type=int, required=True)
    f.add_argument("--at", type=int, required=True, help="a block where the task holds its result")
    f.add_argument("--ws", default="ws://127.0.0.1:9944")
    f.add_argument("--out", default="")
    e = sub.add_parser("evaluate", help="load a checkpoint into PyTorch and test it")
    e.add_argument("--spec", required=True)
    e.add_argument("--model", required=True)
    e.add_argument("--data", required=True, help="an IDX bundle (images then labels)")
    args = p.parse_args()
    run = {"submit": submit, "fetch-model": fetch_model, "evaluate": evaluate}[args.command]
    try:
        run(args)
    except Refusal as e:
        log(f"error: {e}")
        result("RESULT", {"ok": False, "error": e.code, "message": str(e)})
        sys.exit(1)


if __name__ == "__main__":
    main()
