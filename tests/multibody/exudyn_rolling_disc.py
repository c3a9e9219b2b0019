"""Reference data for examples/multibody/RollingDisc.mo from Exudyn's ObjectConnectorRollingDiscPenalty.

Same case as the example: y up, gravity 9.81, disc radius 0.5 m, mass 1 kg, inertia diag(m r^2/2,
m r^2/4, m r^2/4) with the disc axis = body x; starts upright with its centre at height r, velocity
(0, 0, 1) m/s, angular velocity (2, 0.5, 0) rad/s; contactStiffness 1e5, contactDamping 1e3,
dryFriction 0.5 (isotropic), dryFrictionProportionalZone 0.01, quadratic regularization.
Integrator: Exudyn's implicit generalized-alpha (spectral radius 1, i.e. trapezoidal-like), fixed
step h (default 2e-5 s; 1e-4 s moves the end point by 1e-4 m). Writes tests/multibody/exudyn_rolling_disc.csv (every 0.01 s):
time, centre position (3), centre velocity (3), angular velocity in world axes (3).

Usage: /work/venv/bin/python tests/multibody/exudyn_rolling_disc.py [step]
"""
import pathlib
import sys
import time

import exudyn as exu
import numpy as np
from exudyn.utilities import (ObjectGround, MarkerBodyRigid, MarkerNodeRigid, NodeGenericData,
                              ObjectConnectorRollingDiscPenalty, SensorBody, InertiaCuboid)
import exudyn.itemInterface as ii
from exudyn.rigidBodyUtilities import RigidBodyInertia

HERE = pathlib.Path(__file__).resolve().parent


def build(step):
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    r, m, v0, yaw = 0.5, 1.0, 1.0, 0.5
    g = [0, -9.81, 0]
    inertia = RigidBodyInertia(mass=m, inertiaTensor=np.diag([m * r**2 / 2, m * r**2 / 4, m * r**2 / 4]))
    body = mbs.CreateRigidBody(inertia=inertia, referencePosition=[0, r, 0], initialVelocity=[0, 0, v0],
                               initialAngularVelocity=[v0 / r, yaw, 0], gravity=g,
                               nodeType=exu.NodeType.RotationEulerParameters)
    ground = mbs.AddObject(ObjectGround(referencePosition=[0, 0, 0]))
    mGround = mbs.AddMarker(ii.MarkerBodyRigid(bodyNumber=ground, localPosition=[0, 0, 0]))
    mDisc = mbs.AddMarker(ii.MarkerBodyRigid(bodyNumber=body, localPosition=[0, 0, 0]))
    nData = mbs.AddNode(NodeGenericData(initialCoordinates=[0, 0, 0], numberOfDataCoordinates=3))
    mbs.AddObject(ObjectConnectorRollingDiscPenalty(
        markerNumbers=[mGround, mDisc], nodeNumber=nData, discRadius=r, discAxis=[1, 0, 0],
        planeNormal=[0, 1, 0], contactStiffness=1e5, contactDamping=1e3, dryFriction=[0.5, 0.5],
        dryFrictionProportionalZone=0.01, useLinearProportionalZone=False))
    sensors = {
        "pos": mbs.AddSensor(SensorBody(bodyNumber=body, storeInternal=True, outputVariableType=exu.OutputVariableType.Position)),
        "vel": mbs.AddSensor(SensorBody(bodyNumber=body, storeInternal=True, outputVariableType=exu.OutputVariableType.Velocity)),
        "omega": mbs.AddSensor(SensorBody(bodyNumber=body, storeInternal=True, outputVariableType=exu.OutputVariableType.AngularVelocity)),
    }
    mbs.Assemble()
    sim = exu.SimulationSettings()
    tEnd = 2.0
    sim.timeIntegration.numberOfSteps = int(round(tEnd / step))
    sim.timeIntegration.endTime = tEnd
    sim.timeIntegration.generalizedAlpha.spectralRadius = 1
    sim.timeIntegration.verboseMode = 0
    sim.solutionSettings.sensorsWritePeriod = 0.01
    sim.timeIntegration.newton.useModifiedNewton = True
    sim.solutionSettings.writeSolutionToFile = False  # no solution/ folder in the working directory
    return SC, mbs, sim, sensors


def main():
    step = float(sys.argv[1]) if len(sys.argv) > 1 else 2e-5
    SC, mbs, sim, sensors = build(step)
    t0 = time.time()
    mbs.SolveDynamic(sim)
    wall = time.time() - t0
    pos = mbs.GetSensorStoredData(sensors["pos"])
    vel = mbs.GetSensorStoredData(sensors["vel"])
    om = mbs.GetSensorStoredData(sensors["omega"])
    data = np.hstack([pos[:, :4], vel[:, 1:4], om[:, 1:4]])
    header = "time,r1,r2,r3,v1,v2,v3,w1,w2,w3"
    out = HERE / "exudyn_rolling_disc.csv"
    np.savetxt(out, data, delimiter=",", header=header, comments="", fmt="%.10g")
    print(f"exudyn {exu.__version__}: step {step}, wall {wall:.2f} s, {len(data)} rows -> {out}")
    print("final", data[-1])


if __name__ == "__main__":
    main()
