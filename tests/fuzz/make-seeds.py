#!/usr/bin/env python3
"""make-seeds.py: writes the small seed corpora of tests/fuzz/corpus (run
once; the files are committed, and campaigns add what they find). Seeds are
deterministic: the same files every run."""
import os, random, struct, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
rng = random.Random(13)

def put(name, sub, data):
    d = os.path.join(root, sub)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

def e0_bytes(e):
    v = e + 1074
    return bytes([v >> 8, v & 255])

# engine: flags, e0 (2 bytes), n, values, knobs
def lattice(n, e, flags=0, radius=None):
    b = bytes([flags]) + e0_bytes(e) + bytes([n])
    for _ in range(n):
        for a in range(4):
            if a == 3:
                b += bytes([radius if radius is not None else rng.randrange(0, 64)])
            else:
                b += bytes([rng.randrange(28, 37)])  # -4 .. 4 on the lattice
    return b + bytes([rng.randrange(256)])

put("zero-radii-1e-163", "engine", bytes([0]) + e0_bytes(-541) + bytes([2, 32, 32, 32, 0, 33, 32, 32, 0, 0]))
put("radius-2^-538", "engine", lattice(20, -538, 0, 1))
put("subnormal", "engine", lattice(16, -1074, 0))
put("subnormal-2d-f32", "engine", lattice(16, -1074, 3))
put("unit", "engine", lattice(48, 0, 0))
put("unit-soa-2d", "engine", lattice(30, 0, 5))
put("huge", "engine", lattice(24, 480, 0))
put("limits", "engine", bytes([0]) + e0_bytes(-20) + bytes([6] + [0xE0, 0xE1, 0xE2, 3, 0xE4, 200, 32, 3] * 3 + [40, 40, 40, 0xA0] * 3 + [7]))
for k in range(24):
    n = rng.randrange(0, 49)
    e = rng.randrange(-1074, 491)
    b = bytes([rng.randrange(8)]) + e0_bytes(e) + bytes([n]) + bytes(rng.randrange(256) for _ in range(rng.randrange(4 * n, 12 * n + 2)))
    put("random-%02d" % k, "engine", b)

# text: the first byte picks --2d (odd)
texts = {
    "rows": "1 2 3 4\n5.5 -6 7e-3 0\n",
    "flat-crlf": "844.6859\r\n9891.674\r\n1396.232\r\n4.727857\r\n",
    "header": "x,y,z,r\n1,2,3,4\n5,6,7,0.5\n",
    "pandas": ",x,y,z,r,label\n0,1,2,3,4,a\n1,5,6,7,8,b\n",
    "comments": "# spheres\n1 2 3 4 # one\n\n5 6 7 8#two\r",
    "bad-count": "1 2 3\n4 5 6\n",
    "bad-token": "1 2 3 4\n5 6 x 8\n",
    "extremes": "1e150 -1e150 4.9e-324 0\n1e-300 2 3 1e150\n",
    "long": "0." + "1" * 300 + " 2 3 4\n",
    "bom": "\ufeff1,2,3,4\n",
}
for name, t in texts.items():
    put(name, "text", b"\x00" + t.encode("utf-8"))
put("circles", "text", b"\x01" + b"1 2 3\n4 5 6\n")
put("circles-header", "text", b"\x00" + b"x y r\n1 2 3\n")
# bit 1: a sphere limit of (first byte >> 2) + 1, which caps the values'
# reservation: 100 lines against a limit of 10 must not fit it, 8 must
put("limit-over", "text", bytes([2 | 9 << 2]) + b"1 2 3 4\n" * 100)
put("limit-within", "text", bytes([2 | 9 << 2]) + b"1 2 3 4.5\n" * 8)

# npy
def npy(descr, shape, payload, version=1):
    d = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    pre = 10 if version == 1 else 12
    total = (pre + len(d) + 1 + 63) // 64 * 64
    d = d + " " * (total - pre - len(d) - 1) + "\n"
    if version == 1:
        h = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d))
    else:
        h = b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<I", len(d))
    return h + d.encode() + payload

vals = [1, 2, 3, 4, 5.5, -6, 7e-3, 0]
put("f8-2x4", "npy", npy("<f8", "(2, 4)", struct.pack("<8d", *vals)))
put("f4-2x4", "npy", npy("<f4", "(2, 4)", struct.pack("<8f", *vals)))
put("f8-2x3", "npy", npy("<f8", "(2, 3)", struct.pack("<6d", *vals[:6])))
put("f8-v2", "npy", npy("<f8", "(2, 4)", struct.pack("<8d", *vals), 2))
put("f8-v3", "npy", npy("<f8", "(2, 4)", struct.pack("<8d", *vals), 3))
put("truncated", "npy", npy("<f8", "(3, 4)", struct.pack("<8d", *vals)))
put("fortran", "npy", npy("<f8", "(2, 4)", struct.pack("<8d", *vals)).replace(b"False", b"True "))
put("big-endian", "npy", npy(">f8", "(2, 4)", struct.pack(">8d", *vals)))
put("empty", "npy", npy("<f8", "(0, 4)", b""))

# raw: flags byte (bit 0 f32, bit 1 2-D, bits 2-4 misalignment), then rows
put("f64", "raw", bytes([0]) + struct.pack("<8d", *vals))
put("f32-misaligned", "raw", bytes([1 | 4 * 3]) + struct.pack("<8f", *vals))
put("f64-2d", "raw", bytes([2]) + struct.pack("<6d", *vals[:6]))
put("truncated", "raw", bytes([0]) + struct.pack("<8d", *vals)[:-3])
put("negative-radius", "raw", bytes([0]) + struct.pack("<4d", 1, 2, 3, -1))

# pairs: format/target byte, n (2 bytes), then (i, gap, chunk) triples
for k in range(12):
    n = rng.randrange(1, 2000)
    body = bytes(rng.randrange(256) for _ in range(3 * rng.randrange(0, 200)))
    put("random-%02d" % k, "pairs", bytes([k % 12, n >> 8, n & 255]) + body)

# engine, periodic: a lattice, then the shaped and between knobs, then the
# box (axes bits; per periodic axis: scale offset, lo in units, length in
# units) and the peer; its own generator so the seeds above stay as they are
prng = random.Random(17)
def periodic(n, e, flags, axes, radius=None, per_axis=(0, 4, 8)):
    b = bytes([flags]) + e0_bytes(e) + bytes([n])
    for _ in range(n):
        for a in range(4):
            if a == 3:
                b += bytes([radius if radius is not None else prng.randrange(0, 64)])
            else:
                b += bytes([prng.randrange(28, 37)])
    b += bytes([prng.randrange(256), prng.randrange(256), axes])
    for a in range(3):
        if axes >> a & 1:
            b += bytes(per_axis)
    return b + bytes([prng.randrange(256)])

put("periodic-unit", "engine", periodic(40, 0, 0, 7))
put("periodic-small-radii", "engine", periodic(48, 0, 0, 7, radius=1, per_axis=(0, 4, 9)))
put("periodic-2d-x", "engine", periodic(30, 0, 1, 1, radius=2))
put("periodic-xz-f32", "engine", periodic(36, -20, 2, 5))
put("periodic-subnormal", "engine", periodic(24, -1074, 0, 7, radius=1))
put("periodic-huge", "engine", periodic(24, 480, 0, 7))

# particle formats: the first byte picks --2d (bit 0), the caller's radius
# (bits 1-2: none, 0.5, 1=0.5,2=1.5, Ar=2,He=0,O=0.7) and XYZ (bit 3)
dumps = {
    "custom-scaled": (0, "ITEM: TIMESTEP\n100\nITEM: NUMBER OF ATOMS\n3\nITEM: BOX BOUNDS pp pp ff\n"
                         "-2 8\n0 4\n-1e3 1e3\nITEM: ATOMS id diameter xs type z ys\n"
                         "1 1.0 0.25 1 7.5 0.5\n2 3e-5 0.1 2 -1 0.125\n3 0 1 1 0 0\nITEM: TIMESTEP\n200\n"),
    "atom-by-type": (4, "ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS ff ff ff\n"
                        "0 1\n0 1\n0 1\nITEM: ATOMS id type xu yu zu\n7 1 0.5 0.25 -3\n8 2 1 2 3\n"),
    "one-radius-2d-crlf": (3, "ITEM: TIMESTEP\r\n0\r\nITEM: NUMBER OF ATOMS\r\n2\r\n"
                              "ITEM: ATOMS x y z\r\n1 2 0\r\n1.5 2 0\r\n"),
    "triclinic": (0, "ITEM: NUMBER OF ATOMS\n1\nITEM: BOX BOUNDS xy xz yz pp pp pp\n0 1 0\n0 1 0\n0 1 0\n"),
    "labels": (6, "ITEM: NUMBER OF ATOMS\n2\nITEM: ATOMS type x y z\nAr 0 0 0\nHe 1e-300 0 0\n"),
}
dumps.update({
    "xyz-plain": (8 | 6, "3\nwater\nO 0 0 0\nHe 0.5 0 0 extra\nAr 1 2 3\n"),
    "extxyz-radius": (8, '2\nLattice="10 0 0 0 10 0 0 0 10" Properties=species:S:1:pos:R:3:radius:R:1 pbc="T T F"\n'
                         'Ar 0.1 5 5 0.5\nAr 9.8 5 5 0.5\n'),
    "extxyz-skewed-2d": (8 | 2 | 1, '2\nLattice="10 1 0 0 10 0 0 0 10" Properties=pos:R:3:species:S:1\n0 0 0 H\n1 1 1 H\n'),
})
for name, (flag, text) in dumps.items():
    put(name, "particles", bytes([flag]) + text.encode())
