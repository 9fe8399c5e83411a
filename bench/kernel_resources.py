#!/usr/bin/env python3
"""The registers, local frame and stack of the device step's kernels, read from the device object a
CUDA build made (no GPU, no cuobjdump: the attributes are in the cubin's .nv.info section).

usage: python3 bench/kernel_resources.py [BUILD] [--hot-frame-at-most BYTES]
       (default: build; BUILD must have been configured with CUDA, its device link object built)

With --hot-frame-at-most, checks instead of printing: the hot kernels (the listed units' pull
kernels on a plain run, rules::PlainUnit, and the settling) must each have a frame of at most
BYTES. Exit 1 names those that do not; exit 0 says how many were checked and the largest frame.

Prints a Markdown table of the kernels and device functions the steps run: the pull step's
(PullBody and its tally kernels, the link count, the settling), the records' (post, match, cost,
deliver) and the one-block whole run. A frame or stack above 0 means local memory: the one-pass
step's target is none in its hot kernels. The fatbin's cubins may be zstd-compressed; the zstd
program (Debian's zstd, scripts/setup.sh) unpacks them."""
import os
import struct
import subprocess
import sys

# .nv.info attributes (format 4: a 16-bit size, then for these a symbol index and a value).
ATTRIBUTES = {0x2F: "regs", 0x11: "frame", 0x12: "stack"}
FATBIN_MAGIC = 0xBA55ED50
ELF_CUBIN = 2  # a fatbin entry's kind
STEP_NAMES = ("PullBody", "tally_kernel", "CountLinksBody", "SettleBody", "PostBody", "MatchBody", "CostOf", "DeliverBody",
              "step_whole_run", "step_grid_run")


def fail(message):
    print(f"kernel_resources: {message}", file=sys.stderr)
    sys.exit(2)


def elf_sections(blob):
    """(name, type, offset, size, link) of every section of a 64-bit little-endian ELF image."""
    table, = struct.unpack_from("<Q", blob, 0x28)
    entry, count, names_at = struct.unpack_from("<HHH", blob, 0x3A)
    raw = [struct.unpack_from("<IIQQQQIIQQ", blob, table + k * entry) for k in range(count)]
    names_off = raw[names_at][4]
    out = []
    for name, kind, _flags, _addr, off, size, link, _info, _align, _entsize in raw:
        start = names_off + name
        out.append((blob[start:blob.index(b"\0", start)].decode(), kind, off, size, link))
    return out


def unpack(body):
    if body[:4] != b"(\xb5/\xfd":  # not zstd
        return body
    # (the entry's payload is padded after the frame: zstd unpacks the frame, then refuses the
    # padding, so its output counts and its exit status does not)
    try:
        unpacked = subprocess.run(["zstd", "-d", "-q", "-c"], input=body, capture_output=True).stdout
    except OSError:
        unpacked = b""
    if unpacked[:4] != b"\x7fELF":
        fail("the cubins are zstd-compressed and the zstd program could not unpack them (install zstd)")
    return unpacked


def cubins(path):
    """The ELF cubins inside the fatbin sections of an object file."""
    blob = open(path, "rb").read()
    for name, _kind, off, size, _link in elf_sections(blob):
        if name not in (".nv_fatbin", "__nv_relfatbin"):
            continue
        fatbin, at = blob[off:off + size], 0
        while at + 16 <= len(fatbin):
            magic, _version, header, length = struct.unpack_from("<IHHQ", fatbin, at)
            if magic != FATBIN_MAGIC:
                break
            entry = at + header
            while entry < at + header + length:
                kind, _flags, entry_header, payload = struct.unpack_from("<HHIQ", fatbin, entry)
                if kind == ELF_CUBIN:
                    body = unpack(fatbin[entry + entry_header:entry + entry_header + payload])
                    if body[:4] == b"\x7fELF":
                        yield body
                entry += entry_header + payload
            at += header + length


def attributes(cubin):
    """{symbol: {regs, frame, stack}} from the cubin's .nv.info records."""
    sections = elf_sections(cubin)
    _name, _kind, sym_off, sym_size, sym_link = next(s for s in sections if s[1] == 2)  # SHT_SYMTAB
    str_off = sections[sym_link][2]
    symbols = []
    for k in range(sym_size // 24):
        name, = struct.unpack_from("<I", cubin, sym_off + 24 * k)
        symbols.append(cubin[str_off + name:cubin.index(b"\0", str_off + name)].decode())
    found = {}
    for name, _kind, off, size, _link in sections:
        if name != ".nv.info":
            continue
        at, end = off, off + size
        while at < end:
            form, attr = cubin[at], cubin[at + 1]
            if form == 4:
                length, = struct.unpack_from("<H", cubin, at + 2)
                if attr in ATTRIBUTES and length == 8:
                    symbol, value = struct.unpack_from("<II", cubin, at + 4)
                    found.setdefault(symbols[symbol], {})[ATTRIBUTES[attr]] = value
                at += 4 + length
            else:  # forms 1-3: no value, a byte, a half-word
                at += {1: 2, 2: 3, 3: 4}.get(form, end)
    return found


def hot(text):
    """A kernel the pull step runs for a listed unit on a plain run (rules/pull_units.h, PlainUnit),
    or its settling: what the frame target is for."""
    kernel = text.split("(")[0]
    if "PlainUnit<" not in kernel and "SettleBody" not in kernel:
        return False
    return any(k in kernel for k in ("tally_kernel<", "step_grid_run<", "each_kernel<"))


def check(rows, readable, names, most):
    found = [(text, rows[name].get("frame", 0)) for name, text in zip(names, readable) if hot(text)]
    if not found:
        fail("no hot kernel found in the device object")
    over = [(text, frame) for text, frame in found if frame > most]
    for text, frame in over:
        print(f"kernel_resources: {frame} bytes of frame (at most {most}): {text[:160]}", file=sys.stderr)
    if over:
        sys.exit(1)
    print(f"{len(found)} hot kernels, the largest frame {max(frame for _, frame in found)} bytes (at most {most})")


def main():
    args = sys.argv[1:]
    most = None
    if "--hot-frame-at-most" in args:
        at = args.index("--hot-frame-at-most")
        if at + 1 >= len(args) or not args[at + 1].isdigit():
            fail("--hot-frame-at-most takes a number of bytes")
        most = int(args[at + 1])
        del args[at:at + 2]
    if len(args) > 1:
        fail("usage: kernel_resources.py [BUILD] [--hot-frame-at-most BYTES]")
    build = args[0] if args else "build"
    obj = os.path.join(build, "CMakeFiles", "ppsim_device.dir", "cmake_device_link.o")
    if not os.path.isfile(obj):
        fail(f"no device link object at {obj}: configure {build} with CUDA (nvcc) and build it")
    rows = {}
    for cubin in cubins(obj):
        rows.update(attributes(cubin))
    names = sorted(rows)
    # A kernel with internal linkage is named __nv_static_<unit>__<its mangled name>.
    mangled = [n[n.index("__Z") + 1:] if n.startswith("__nv_static_") and "__Z" in n else n for n in names]
    readable = subprocess.run(["c++filt"], input="\n".join(mangled), capture_output=True, text=True).stdout.split("\n")
    if most is not None:
        check(rows, readable, names, most)
        return
    print("| kernel or device function | registers | frame, bytes | stack, bytes |")
    print("|---|---:|---:|---:|")
    shown = 0
    for name, text in zip(names, readable):
        if not any(step in text for step in STEP_NAMES) or "lambda" in text or "with_topology_unit" in text:
            continue
        r = rows[name]
        text = text.replace("ppsim::rounds::", "").replace("ppsim::", "")
        if "(anonymous namespace)::" in text:
            text = text.split("(anonymous namespace)::")[-1]
        print(f"| `{text[:110]}` | {r.get('regs', '-')} | {r.get('frame', '-')} | {r.get('stack', '-')} |")
        shown += 1
    if shown == 0:
        fail(f"no step kernel found in {obj}")


if __name__ == "__main__":
    main()
