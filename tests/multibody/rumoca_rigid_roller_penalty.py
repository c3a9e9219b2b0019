"""Reference for the rigid roller contact: the stiff-penalty limit, simulated by rumoca 0.10.2.

rumoca cannot simulate the rigid contact (no index reduction for der(v_n)), so the reference for
examples/multibody/RigidRoller.mo is the same roller, frictionless, with a linear penalty contact
of growing stiffness k = 1e6 ... 1e9 N/m. Differences to k = 1e9 shrink like 1/k (roller height
2.4e-6, 2.4e-7, 2.2e-8 m; quaternion 1e-4, 1e-5, 1e-6), so k = 1e9 stands for the rigid contact to
about 1e-8 m in height and 1e-7 in the quaternion. Angular velocities carry the penalty spring's
vibration (1e-2 rad/s at 1e8) and are not compared tightly. Writes rumoca_rigid_roller_penalty.csv:
time, centre height, quaternion (4), body angular velocity (3). Takes about 6 minutes.
"""
import pathlib

import numpy as np
import rumoca

from rumoca_patch import patched_stdlib

HERE = pathlib.Path(__file__).resolve().parent
MODEL = """
model RigidRollerPenalty
  import Minimo.Multibody.*;
  parameter Real R = 0.05;
  parameter Integer nRollers = 4;
  parameter Real m = 0.1;
  parameter Real tilt = 0.2;
  final parameter Real R1 = R*cos(3.141592653589793/nRollers);
  Parts.Ground ground;
  Omni.RollerBody roller(m = m, R = R, nRollers = nRollers,
    r_start = {0, R - R1*cos(tilt), 0}, q_start = {cos(tilt/2), 0, 0, sin(tilt/2)}, w_start = {0, 3, 0});
  Contacts.PointContact contact(redeclare model Geometry = Contacts.Geometries.RollerOnPlane(R = R, nRollers = nRollers),
    redeclare model NormalElastic = Contacts.Elastic.LinearPenalty, redeclare model NormalDamping = Contacts.Damping.None,
    redeclare model TangentialForce = Contacts.Friction.None);
equation
  connect(ground.frame, contact.frame_a);
  connect(contact.frame_b, roller.frame);
end RigidRollerPenalty;
"""
VARS = ["r[2]", "q[1]", "q[2]", "q[3]", "q[4]", "wb[1]", "wb[2]", "wb[3]"]


def main():
    lib = patched_stdlib(pathlib.Path("/tmp/minimo_stdlib_rumoca"))
    src = pathlib.Path("/tmp/minimo_rigid_roller_penalty.mo")
    src.write_text(MODEL)
    runs = {}
    for k in (1e6, 1e7, 1e8, 1e9):
        # rumoca 0.10.2 ignores modifiers inside redeclarations: set k as a parameter instead.
        m = rumoca.Session(roots=[str(lib)]).load(str(src), model="RigidRollerPenalty")
        m = m.with_params(**{"contact.elastic.k": k})
        runs[k] = m.simulate(2.0, dt=0.01, config=rumoca.SimConfig(rtol=1e-10, atol=1e-13))
    for k in (1e6, 1e7, 1e8):
        d = [np.abs(np.array(runs[k][f"roller.{v}"]) - np.array(runs[1e9][f"roller.{v}"])).max() for v in VARS]
        print(f"k = {k:g} vs 1e9:", " ".join(f"{v} {x:.2e}" for v, x in zip(VARS, d)))
    r = runs[1e9]
    data = np.column_stack([np.array(r.time)] + [np.array(r[f"roller.{v}"]) for v in VARS])
    np.savetxt(HERE / "rumoca_rigid_roller_penalty.csv", data, delimiter=",", comments="",
               header="time,y,q1,q2,q3,q4,wb1,wb2,wb3", fmt="%.10g")


if __name__ == "__main__":
    main()
