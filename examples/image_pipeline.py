"""A uint8 vision pipeline: blur, Sobel edges, histogram, Otsu threshold and region labelling.

A 192x192 grey-level scene (bright shapes on a shaded, noisy background) is smoothed with a 3x3
Gaussian, its Sobel gradient magnitude is computed, and a 256-bin histogram of the smoothed image
gives an Otsu threshold that separates the shapes from the background. The binary image is
labelled into connected regions, and each region is summarised with its area, bounding box,
centroid and mean edge strength on its boundary.

What `partition` sees: the per-pixel loop kernels (`gaussian_blur3`, `sobel_magnitude`,
`histogram256`, `threshold`) are fixed-size integer stencils and reductions over a 36 KiB image;
parsing the scene, choosing the threshold, flood-filling regions into Python objects and drawing
an ASCII thumbnail belong on the CPU.

Run it with no arguments; the output is deterministic.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import zlib

import numpy as np

SIZE = 192

DEFAULT_SCENE = """\
# shape  parameters (pixels)      level
disc     x=50  y=56  r=24          level=205
disc     x=144 y=42  r=15          level=180
rect     x=86  y=104 w=66  h=36    level=225
ring     x=46  y=150 r=23 t=7      level=195
rect     x=156 y=138 w=20  h=44    level=170
disc     x=120 y=70  r=3           level=200
"""

# 3x3 binomial (Gaussian) kernel, weights sum to 16.
GAUSS_3X3 = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], dtype=np.int32)
SOBEL_X = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=np.int32)
SOBEL_Y = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], dtype=np.int32)


# ------------------------------------------------------------------------------ FPGA candidates


def gaussian_blur3(img: np.ndarray) -> np.ndarray:
    """3x3 Gaussian blur, rounded; border pixels repeat the nearest edge pixel (clamp-to-edge)."""
    out = np.zeros((img.shape[0], img.shape[1]), dtype=np.uint8)
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            acc = np.int32(0)
            for di in range(3):
                for dj in range(3):
                    r = min(max(i + di - 1, 0), img.shape[0] - 1)
                    c = min(max(j + dj - 1, 0), img.shape[1] - 1)
                    acc += np.int32(img[r, c]) * GAUSS_3X3[di, dj]
            out[i, j] = (acc + 8) >> 4
    return out


def sobel_magnitude(img: np.ndarray, shift: int) -> np.ndarray:
    """(|gx| + |gy|) >> shift of the 3x3 Sobel operator, saturated to 255; the 1-pixel border is 0.

    |gx| + |gy| reaches 8 * 255; `shift` trades edge resolution against saturation.
    """
    out = np.zeros((img.shape[0], img.shape[1]), dtype=np.uint8)
    for i in range(1, img.shape[0] - 1):
        for j in range(1, img.shape[1] - 1):
            gx = np.int32(0)
            gy = np.int32(0)
            for di in range(3):
                for dj in range(3):
                    p = np.int32(img[i + di - 1, j + dj - 1])
                    gx += p * SOBEL_X[di, dj]
                    gy += p * SOBEL_Y[di, dj]
            out[i, j] = min((abs(gx) + abs(gy)) >> shift, 255)
    return out


def histogram256(img: np.ndarray) -> np.ndarray:
    """Count of each grey level."""
    hist = np.zeros(256, dtype=np.int32)
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            hist[img[i, j]] += 1
    return hist


def threshold(img: np.ndarray, level: int) -> np.ndarray:
    """Binary image: 1 where the pixel is above `level`, else 0."""
    out = np.zeros((img.shape[0], img.shape[1]), dtype=np.uint8)
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            if img[i, j] > level:
                out[i, j] = 1
    return out


# ------------------------------------------------------------------------------ CPU side


@dataclasses.dataclass(frozen=True)
class Shape:
    kind: str
    params: dict[str, int]
    level: int


@dataclasses.dataclass
class Region:
    label: int
    area: int
    top: int
    left: int
    bottom: int
    right: int
    centroid: tuple[float, float]
    edge_mean: float


SHAPE_PARAMS = {"disc": ("x", "y", "r"), "rect": ("x", "y", "w", "h"), "ring": ("x", "y", "r", "t")}


def parse_scene(text: str) -> list[Shape]:
    """One shape per line: `kind key=value ... level=value`."""
    shapes = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        kind, *fields = line.split()
        if kind not in SHAPE_PARAMS:
            raise ValueError(f"scene line {line_no}: unknown shape {kind!r} (known: {sorted(SHAPE_PARAMS)})")
        params = {}
        for item in fields:
            key, sep, value = item.partition("=")
            if not sep or not value.lstrip("-").isdigit():
                raise ValueError(f"scene line {line_no}: expected key=integer, got {item!r}")
            params[key] = int(value)
        wanted = {*SHAPE_PARAMS[kind], "level"}
        if params.keys() != wanted:
            raise ValueError(f"scene line {line_no}: {kind} needs {sorted(wanted)}, got {sorted(params)}")
        level = params.pop("level")
        if not 0 <= level <= 255:
            raise ValueError(f"scene line {line_no}: level {level} is outside 0..255")
        shapes.append(Shape(kind, params, level))
    return shapes


def render_scene(shapes: list[Shape], seed: int, noise: float) -> np.ndarray:
    """Shaded background, the shapes painted in order, Gaussian noise; uint8."""
    rng = np.random.RandomState(seed)
    y, x = np.mgrid[0:SIZE, 0:SIZE]
    scene = 40.0 + 0.25 * x + 0.15 * y
    for s in shapes:
        p = s.params
        if s.kind == "disc":
            mask = (x - p["x"]) ** 2 + (y - p["y"]) ** 2 <= p["r"] ** 2
        elif s.kind == "ring":
            d2 = (x - p["x"]) ** 2 + (y - p["y"]) ** 2
            mask = (d2 <= p["r"] ** 2) & (d2 > (p["r"] - p["t"]) ** 2)
        else:
            mask = (x >= p["x"]) & (x < p["x"] + p["w"]) & (y >= p["y"]) & (y < p["y"] + p["h"])
        scene[mask] = s.level
    scene += rng.normal(0.0, noise, scene.shape)
    return np.clip(np.round(scene), 0, 255).astype(np.uint8)


def otsu_level(hist: np.ndarray) -> int:
    """The grey level that maximises the between-class variance (Otsu, 1979)."""
    counts = [int(c) for c in hist]
    total = sum(counts)
    total_mass = sum(level * c for level, c in enumerate(counts))
    best_level, best_score = 0, -1.0
    below = below_mass = 0
    for level, c in enumerate(counts[:-1]):
        below += c
        below_mass += level * c
        above = total - below
        if below == 0 or above == 0:
            continue
        mean_below = below_mass / below
        mean_above = (total_mass - below_mass) / above
        score = below * above * (mean_below - mean_above) ** 2
        if score > best_score:
            best_level, best_score = level, score
    return best_level


def label_regions(binary: np.ndarray, edges: np.ndarray, min_area: int) -> list[Region]:
    """4-connected components of the foreground (flood fill), largest first.

    Regions smaller than `min_area` pixels are noise and dropped. `edge_mean` is the mean Sobel
    magnitude over the region's boundary pixels (foreground pixels with a background neighbour).
    """
    rows, cols = binary.shape
    fg = binary.tolist()
    seen = [[False] * cols for _ in range(rows)]
    regions = []
    for r0 in range(rows):
        for c0 in range(cols):
            if not fg[r0][c0] or seen[r0][c0]:
                continue
            seen[r0][c0] = True
            queue = collections.deque([(r0, c0)])
            pixels = []
            boundary = []
            while queue:
                r, c = queue.popleft()
                pixels.append((r, c))
                on_boundary = False
                for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    if not (0 <= nr < rows and 0 <= nc < cols) or not fg[nr][nc]:
                        on_boundary = True
                    elif not seen[nr][nc]:
                        seen[nr][nc] = True
                        queue.append((nr, nc))
                if on_boundary:
                    boundary.append((r, c))
            if len(pixels) < min_area:
                continue
            rs = [p[0] for p in pixels]
            cs = [p[1] for p in pixels]
            regions.append(
                Region(
                    label=0,
                    area=len(pixels),
                    top=min(rs),
                    left=min(cs),
                    bottom=max(rs),
                    right=max(cs),
                    centroid=(sum(rs) / len(rs), sum(cs) / len(cs)),
                    edge_mean=sum(int(edges[r, c]) for r, c in boundary) / len(boundary),
                )
            )
    regions.sort(key=lambda g: (-g.area, g.top, g.left))
    for label, region in enumerate(regions, start=1):
        region.label = label
    return regions


def ascii_thumbnail(binary: np.ndarray, edges: np.ndarray, edge_level: int, step: int) -> list[str]:
    """One character per step x (2 * step) block: '#' mostly foreground, '+' strong edge, '.' else."""
    lines = []
    for r in range(0, binary.shape[0], 2 * step):
        row = []
        for c in range(0, binary.shape[1], step):
            block = binary[r : r + 2 * step, c : c + step]
            if 2 * int(block.sum()) >= block.size:
                row.append("#")
            elif int(edges[r : r + 2 * step, c : c + step].max()) >= edge_level:
                row.append("+")
            else:
                row.append(".")
        lines.append("".join(row))
    return lines


def checksum(a: np.ndarray) -> str:
    return f"crc32={zlib.crc32(a.tobytes()):08x} sum={int(a.sum(dtype=np.int64))}"


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scene", help="scene description file (default: the built-in one)")
    parser.add_argument("--seed", type=int, default=11, help="noise seed (default: %(default)s)")
    parser.add_argument("--noise", type=float, default=18.0, help="noise rms (default: %(default)s)")
    parser.add_argument(
        "--edge-shift", type=int, default=2, help="Sobel magnitude scaling shift (default: %(default)s)"
    )
    parser.add_argument(
        "--min-area", type=int, default=20, help="smallest region kept (default: %(default)s)"
    )
    args = parser.parse_args(argv)

    text = DEFAULT_SCENE
    if args.scene:
        with open(args.scene, encoding="utf-8") as f:
            text = f.read()
    try:
        shapes = parse_scene(text)
    except ValueError as e:
        parser.error(str(e))
    img = render_scene(shapes, args.seed, args.noise)

    blurred = gaussian_blur3(img)
    edges = sobel_magnitude(blurred, args.edge_shift)
    hist = histogram256(blurred)
    level = otsu_level(hist)
    binary = threshold(blurred, level)
    regions = label_regions(binary, edges, args.min_area)
    edge_hist = histogram256(edges)

    print(f"image_pipeline: {SIZE}x{SIZE} uint8 scene, {len(shapes)} shapes, seed {args.seed}")
    print(f"  input     {checksum(img)}")
    print(f"  blurred   {checksum(blurred)}")
    print(f"  edges     {checksum(edges)}")
    print(f"  hist      {checksum(hist)}")
    print(f"  otsu      level {level}")
    print(f"  binary    {checksum(binary)} ({int(binary.sum())} foreground pixels)")
    print(f"  edge hist {checksum(edge_hist)} (saturated: {int(edge_hist[255])})")
    print("  grey levels   pixels")
    for lo in range(0, 256, 32):
        count = int(hist[lo : lo + 32].sum())
        print(f"    {lo:3d}-{lo + 31:3d}  {count:7d}  {'*' * round(60 * count / img.size)}")
    print(f"  regions: {len(regions)} (4-connected, area >= {args.min_area})")
    print("    label  area   bbox (top,left)-(bottom,right)   centroid (r,c)   edge_mean")
    for g in regions:
        bbox = f"({g.top:3d},{g.left:3d})-({g.bottom:3d},{g.right:3d})"
        centroid = f"({g.centroid[0]:6.2f},{g.centroid[1]:6.2f})"
        print(f"    {g.label:5d}  {g.area:4d}   {bbox:30s}   {centroid:15s}  {g.edge_mean:9.2f}")
    print("  thumbnail ('#' foreground, '+' edge >= 128):")
    for line in ascii_thumbnail(binary, edges, 128, 3):
        print("    " + line)
    return {
        "image": img,
        "blurred": blurred,
        "edges": edges,
        "hist": hist,
        "level": level,
        "binary": binary,
        "edge_hist": edge_hist,
        "regions": regions,
    }


if __name__ == "__main__":
    main()
