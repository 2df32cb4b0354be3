#!/usr/bin/env python3
"""Writes the must-fail inputs of tests/error/test_io_bad_inputs.cpp into this folder.

Every file here must make tonekit::io::read_image() return a Status with is_input_error()
true and a one-line message starting with the file's path. The files are committed (a few KB in
all); rerun this script after changing it:  python3 tests/bad_inputs/make_bad_inputs.py

The OpenEXR files are assembled by hand after the OpenEXR file layout document
(https://openexr.com/en/latest/OpenEXRFileLayout.html): magic, version, attributes, offset
table, chunks.
"""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

HALF, FLOAT = 1, 2
NO_COMPRESSION, ZIP_COMPRESSION = 0, 3


def attribute(name, type_name, value):
    return name.encode() + b"\0" + type_name.encode() + b"\0" + struct.pack("<i", len(value)) + value


def exr_header(width, height, compression=NO_COMPRESSION, channels=("B", "G", "R"), pixel_type=HALF,
               window=None):
    x0, y0, x1, y1 = window if window else (0, 0, width - 1, height - 1)
    chlist = b"".join(c.encode() + b"\0" + struct.pack("<iB3xii", pixel_type, 0, 1, 1) for c in sorted(channels))
    box = struct.pack("<iiii", x0, y0, x1, y1)
    attributes = [
        attribute("channels", "chlist", chlist + b"\0"),
        attribute("compression", "compression", bytes([compression])),
        attribute("dataWindow", "box2i", box),
        attribute("displayWindow", "box2i", box),
        attribute("lineOrder", "lineOrder", b"\0"),
        attribute("pixelAspectRatio", "float", struct.pack("<f", 1.0)),
        attribute("screenWindowCenter", "v2f", struct.pack("<ff", 0.0, 0.0)),
        attribute("screenWindowWidth", "float", struct.pack("<f", 1.0)),
    ]
    return struct.pack("<ii", 20000630, 2) + b"".join(attributes) + b"\0"


def exr_uncompressed(width, height, channels=("B", "G", "R")):
    """A valid uncompressed scanline EXR of half grey ramps: one chunk per scanline."""
    header = exr_header(width, height, channels=channels)
    line_bytes = width * 2 * len(channels)
    chunks = []
    for y in range(height):
        row = b"".join(struct.pack("<e", (x + y) / 16.0) for x in range(width))
        chunks.append(struct.pack("<ii", y, line_bytes) + row * len(channels))
    table_start = len(header)
    offsets, position = [], table_start + 8 * height
    for chunk in chunks:
        offsets.append(position)
        position += len(chunk)
    return header + b"".join(struct.pack("<Q", o) for o in offsets) + b"".join(chunks)


def exr_zip_with_garbage(width, height):
    """ZIP-compressed header and offset table, but the chunk data does not inflate."""
    header = exr_header(width, height, compression=ZIP_COMPRESSION)
    chunk_count = (height + 15) // 16
    body, offsets = b"", []
    position = len(header) + 8 * chunk_count
    for i in range(chunk_count):
        garbage = bytes((i * 37 + k * 11) & 0xFF for k in range(40))
        chunk = struct.pack("<ii", i * 16, len(garbage)) + garbage
        offsets.append(position + len(body))
        body += chunk
    return header + b"".join(struct.pack("<Q", o) for o in offsets) + body


def exr_bad_offsets(width, height):
    """Valid header, offset table pointing far past the end of the file."""
    valid = exr_uncompressed(width, height)
    header = exr_header(width, height)
    table = b"".join(struct.pack("<Q", 10**12 + i) for i in range(height))
    return header + table + valid[len(header) + 8 * height:]


def exr_huge_attribute():
    """An attribute claiming 2 GB of value in a 100-byte file."""
    return struct.pack("<ii", 20000630, 2) + b"comments\0string\0" + struct.pack("<i", 0x7FFFFFF0) + b"x" * 40


def rgbe_header(resolution, extra=b""):
    return b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n" + extra + b"\n" + resolution + b"\n"


def rgbe_rle_scanline(width, value):
    line = bytes([2, 2, width >> 8, width & 0xFF])
    for component in (value, value, value, 128):
        remaining = width
        while remaining:
            run = min(127, remaining)
            line += bytes([128 + run, component])
            remaining -= run
    return line


def rgbe_valid(width, height):
    return rgbe_header(b"-Y %d +X %d" % (height, width)) + b"".join(rgbe_rle_scanline(width, 100 + y) for y in range(height))


def pfm(width_text, height_text, scale_text, data):
    return b"PF\n" + width_text + b" " + height_text + b"\n" + scale_text + b"\n" + data


def pfm_valid(width, height):
    return pfm(b"%d" % width, b"%d" % height, b"-1.0", struct.pack("<%df" % (width * height * 3), *([0.5] * width * height * 3)))


def bad_inputs():
    exr = exr_uncompressed(8, 8)
    header_length = len(exr_header(8, 8))
    hdr = rgbe_valid(16, 8)
    return {
        # Any format
        "empty.exr": b"",
        "wrong_magic.exr": b"GIF89a\x01\x00\x01\x00\x00\x00\x00;",
        "wrong_magic.pfm": b"P6\n2 2\n255\n" + bytes(12),
        "too_short.hdr": b"#",
        # OpenEXR
        "truncated_data.exr": exr[: len(exr) - 100],
        "truncated_header.exr": exr[: header_length // 2],
        "truncated_magic.exr": exr[:6],
        "huge_dims.exr": exr_header(8, 8, window=(0, 0, 2**31 - 2, 2**31 - 2)) + exr[header_length:],
        "inverted_window.exr": exr_header(8, 8, window=(5, 5, 0, 0)) + exr[header_length:],
        "claims_more.exr": exr_header(64, 30000) + exr[header_length : header_length + 200],
        "bad_offsets.exr": exr_bad_offsets(8, 8),
        "corrupt_zip.exr": exr_zip_with_garbage(8, 40),
        "huge_attribute.exr": exr_huge_attribute(),
        "bad_version.exr": exr[:4] + struct.pack("<i", 7) + exr[8:],
        # Radiance RGBE
        "truncated.hdr": hdr[: len(hdr) - 30],
        "truncated_header.hdr": b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n",
        "no_resolution.hdr": b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n",
        "zero_dims.hdr": rgbe_header(b"-Y 0 +X 0") + bytes(16),
        "huge_dims.hdr": rgbe_header(b"-Y 2147483648 +X 2147483648") + bytes(16),
        "claims_more.hdr": rgbe_header(b"-Y 1000 +X 1000") + rgbe_rle_scanline(1000, 7),
        "bad_orientation.hdr": rgbe_header(b"+Y 8 +X 16") + hdr[len(rgbe_header(b"-Y 8 +X 16")):],
        "malformed_resolution.hdr": rgbe_header(b"-Y eight +X 16") + bytes(64),
        "xyze.hdr": b"#?RADIANCE\nFORMAT=32-bit_rle_xyze\n\n-Y 8 +X 16\n" + hdr[len(rgbe_header(b"-Y 8 +X 16")):],
        "unknown_program.hdr": b"#?PAINT\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 1\n" + bytes(4),
        "bad_exposure.hdr": rgbe_header(b"-Y 8 +X 16", b"EXPOSURE=abc\n") + hdr[len(rgbe_header(b"-Y 8 +X 16")):],
        "rle_overrun.hdr": rgbe_header(b"-Y 1 +X 16") + bytes([2, 2, 0, 16, 128 + 127, 5]) + bytes(32),
        "rle_wrong_width.hdr": rgbe_header(b"-Y 1 +X 16") + bytes([2, 2, 0, 17]) + bytes(64),
        # PFM
        "truncated.pfm": pfm_valid(4, 4)[:-20],
        "truncated_header.pfm": b"PF\n4",
        "zero_dims.pfm": pfm(b"0", b"4", b"-1.0", bytes(64)),
        "negative_dims.pfm": pfm(b"-4", b"4", b"-1.0", bytes(64)),
        "huge_dims.pfm": pfm(b"2147483648", b"1", b"-1.0", bytes(64)),
        "claims_more.pfm": pfm(b"1000", b"1000", b"-1.0", bytes(16)),
        "nonnumeric_scale.pfm": pfm(b"2", b"2", b"abc", bytes(48)),
        "zero_scale.pfm": pfm(b"2", b"2", b"0.0", bytes(48)),
        "nonnumeric_width.pfm": pfm(b"two", b"2", b"-1.0", bytes(48)),
    }


def main():
    for name in os.listdir(HERE):
        if not name.endswith((".py", ".md")):
            os.remove(os.path.join(HERE, name))
    for name, content in sorted(bad_inputs().items()):
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(content)
    total = sum(len(c) for c in bad_inputs().values())
    print("wrote %d files, %d bytes" % (len(bad_inputs()), total))


if __name__ == "__main__":
    main()
