"""Copy of stdlib/ that rumoca 0.10.2 accepts.

rumoca 0.10.2 counts `input`/`output` connector variables as potentials when it checks connector
balance, although MLS 3.6 section 9.3.1 excludes them. minimo's frames carry the body kinematics as
outputs (body side) and inputs (constraint side), so rumoca rejects them. For rumoca only, this
script rewrites the two frame connectors: the causal prefixes are dropped and 18 dummy flow
variables (kin_r[3], kin_T[3,3], kin_v[3], kin_w[3]) balance the 18 kinematic potentials (rumoca
counts declarations, MLS counts scalars: both match then); every constraint, and every body in
joint coordinates on its parent's frame, sets them to zero.
The equations that matter (bodies, joints, contacts) are untouched.
"""
import pathlib
import re
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def patched_stdlib(dest: pathlib.Path) -> pathlib.Path:
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(ROOT / "stdlib", dest)
    itf = dest / "Minimo" / "Multibody" / "Interfaces.mo"
    s = itf.read_text()
    s = re.sub(r"^(\s*)(output|input) Real", r"\1Real", s, flags=re.M)
    dummies = "    flow Real kin_r[3], kin_T[3, 3], kin_v[3], kin_w[3] \"rumoca-only balance dummies\";\n"
    s = s.replace("  end BodyFrame;", dummies + "  end BodyFrame;")
    s = s.replace("  end ConstraintFrame;", dummies + "  end ConstraintFrame;")
    itf.write_text(s)
    j = dest / "Minimo" / "Multibody" / "Joints.mo"
    s = j.read_text()
    s = s.replace("    FA + FB = zeros(3);", "".join(
        f"    {f}.kin_{k} = zeros({d});\n" for f in ("frame_a", "frame_b") for k, d in
        (("r", "3"), ("T", "3, 3"), ("v", "3"), ("w", "3"))) + "    FA + FB = zeros(3);", 1)
    j.write_text(s)
    # A body in joint coordinates is the constraint side of its parent's frame.
    parts = dest / "Minimo" / "Multibody" / "Parts.mo"
    s = parts.read_text()
    s = s.replace("    der(phi) = wrel;\n", "".join(
        f"    parent.kin_{k} = zeros({d});\n" for k, d in
        (("r", "3"), ("T", "3, 3"), ("v", "3"), ("w", "3"))) + "    der(phi) = wrel;\n", 1)
    parts.write_text(s)
    return dest


if __name__ == "__main__":
    print(patched_stdlib(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/minimo_stdlib_rumoca")))
