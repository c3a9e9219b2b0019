"""Cross-tool reference: the omni vehicle with compliant roller contacts, simulated by rumoca 0.10.2.

rumoca cannot simulate the rigid roller contact (it has no index reduction for der(v_n)), but it can
simulate the same library vehicle with every roller's normal law swapped to a linear penalty
(k = 1e5 N/m, linear damping d = 1e3 N.s/m; both equal to the sockets' defaults, because
rumoca 0.10.2 ignores class modifiers inside redeclarations). That exercises the whole assembly: start values of the
16 bodies, 15 revolute joints, roller geometry, friction. Motion 1 (1 m/s towards wheel 1), 1 s.
Writes rumoca_vehicle_compliant.csv: time, platform centre (3), velocity (3), heading.
Takes about 11 minutes.
"""
import pathlib
import sys
import time

import numpy as np
import rumoca

from rumoca_patch import patched_stdlib

HERE = pathlib.Path(__file__).resolve().parent
MODEL = """
model VehicleCompliant
  Minimo.Multibody.Omni.Vehicle vehicle(redeclare model NormalLaw = Minimo.Multibody.Contacts.Elastic.LinearPenalty(k = 1e5),
    redeclare model DampingLaw = Minimo.Multibody.Contacts.Damping.Linear(d = 1e3));
end VehicleCompliant;
"""
COLS = ["vehicle.platform.r[1]", "vehicle.platform.r[2]", "vehicle.platform.r[3]",
        "vehicle.platform.v[1]", "vehicle.platform.v[2]", "vehicle.platform.v[3]", "vehicle.heading"]


def main():
    lib = patched_stdlib(pathlib.Path("/tmp/minimo_stdlib_rumoca"))
    src = pathlib.Path("/tmp/minimo_vehicle_compliant.mo")
    src.write_text(MODEL)
    m = rumoca.Session(roots=[str(lib)]).load(str(src), model="VehicleCompliant")
    t0 = time.time()
    r = m.simulate(1.0, dt=0.01, config=rumoca.SimConfig(rtol=1e-6, atol=1e-8))
    print(f"rumoca {rumoca.version()}: {time.time() - t0:.0f} s wall", file=sys.stderr)
    data = np.column_stack([np.array(r.time)] + [np.array(r[c]) for c in COLS])
    np.savetxt(HERE / "rumoca_vehicle_compliant.csv", data, delimiter=",", comments="",
               header="time,x,y,z,vx,vy,vz,heading", fmt="%.10g")


if __name__ == "__main__":
    main()
