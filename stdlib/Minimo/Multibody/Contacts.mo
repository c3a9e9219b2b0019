within Minimo.Multibody;
package Contacts "Point contacts: the ContactConstraintTemplate, its four sockets and complete contacts"

  package Interfaces "What each socket of the template must provide"
    partial model PartialGeometry "Socket 1: contact geometry (closest points, normal, gap)"
      input Units.Length rA[3] "position of body A";
      input Real TA[3, 3] "rotation matrix of body A";
      input Units.Length rB[3] "position of body B";
      input Real TB[3, 3] "rotation matrix of body B";
      input Units.Length rRef[3] "a reference point some geometries need (the wheel centre of an inclined roller)";
      output Units.Length PB[3] "point of B closest to A: the contact point on B, world";
      output Units.Length PA[3] "point of A closest to B, world";
      output Real n[3] "unit normal of A's surface at PA, pointing towards B, world";
      output Units.Length h "signed gap (PB - PA)*n; negative means penetration";
      output Real valid "positive when the point contact is regular and B is the contact candidate";
    end PartialGeometry;

    partial model PartialNormalElastic "Socket 2: normal elastic force; says when the contact is active and what holds then"
      input Units.Length h "signed gap";
      input Real valid "from the geometry socket";
      input Units.Velocity relvn "normal relative velocity of B's contact point (positive: separating)";
      input Units.Force Fn "normal force on B (unknown of the contact)";
      input Units.Force Fd "normal damping force from socket 3";
      output Real active "positive: in contact";
      output Real residual "in contact the template imposes residual = 0";
      output Units.Energy Epot "elastic energy stored in the contact";
    end PartialNormalElastic;

    partial model PartialNormalDamping "Socket 3: normal viscous force"
      input Units.Length h "signed gap";
      input Units.Velocity relvn "normal relative velocity (positive: separating)";
      output Units.Force Fd "damping part of the normal force on B";
    end PartialNormalDamping;

    partial model PartialTangentialForce "Socket 4: tangential (friction) force"
      input Units.Force Fn "normal force on B";
      input Units.Velocity vt[3] "tangential slip velocity of B's contact point relative to A, world";
      input Real n[3] "contact normal, world";
      output Units.Force Ft[3] "tangential force on B, world";
    end PartialTangentialForce;
  end Interfaces;

  package Geometries "Socket 1 models"
    partial model PlaneGeometry "Body A is a plane through A's reference point"
      extends Interfaces.PartialGeometry;
      parameter Real nPlane[3] = {0, 1, 0} "plane normal, A axes (unit)";
    equation
      n = TA*nPlane;
      h = (PB - rA)*n;
      PA = PB - h*n;
    end PlaneGeometry;

    model SphereOnPlane "Sphere of radius 'radius' centred at B's reference point"
      extends PlaneGeometry;
      parameter Units.Length radius = 0.1;
    equation
      PB = rB - radius*n;
      valid = 1;
    end SphereOnPlane;

    model DiscOnPlane "Thin disc (radius, axis in B axes) on a plane, as Exudyn's RollingDiscPenalty"
      extends PlaneGeometry;
      parameter Units.Length radius = 0.5;
      parameter Real discAxis[3] = {1, 0, 0} "disc axis, B axes (unit)";
      Real w1[3] "disc axis, world";
      Real x[3] "w1 x n";
      Real w3[3] "unit vector from the disc centre to the contact point";
    equation
      w1 = TB*discAxis;
      x = cross(w1, n);
      w3 = cross(w1, x/sqrt(x*x));
      PB = rB + radius*w3;
      valid = 1;
    end DiscOnPlane;

    model RollerOnPlane "Spindle roller x^2 + (sqrt(y^2+z^2) + R1)^2 = R^2 (x = roller axis) on a plane; lowest point, tips included"
      extends PlaneGeometry;
      parameter Units.Length R = 0.05 "radius of the generating arc (the omni wheel radius)";
      parameter Integer nRollers = 4 "rollers per wheel: the roller spans the angle 2*pi/nRollers";
      final parameter Real alpha = 3.141592653589793/nRollers "half the opening angle of the roller";
      final parameter Units.Length R1 = R*cos(alpha) "distance from the roller axis to the arc centre";
      Real i[3] "roller axis, world";
      Real s "i*n: sine of the axis inclination to the plane";
    equation
      i = TB*{1, 0, 0};
      s = i*n;
      // Kosenko & Gerasimov 2014 eq. (2): the arc centre lies R1 above the axis in the vertical plane
      // through it, the lowest point R below that; past the inclination alpha it is a tip.
      PB = if noEvent(s > sin(alpha)) then rB - R*sin(alpha)*i
           elseif noEvent(s < -sin(alpha)) then rB + R*sin(alpha)*i
           else rB + R1*(n - s*i)/sqrt(1 - s*s) - R*n;
      // Conditions (4) and (5) of the paper: axis within +-alpha of the plane, centre below R.
      valid = if noEvent(abs(s) < sin(alpha) and (rB - rA)*n < R) then 1 else -1;
    end RollerOnPlane;

    model InclinedRollerOnPlane "Roller whose axis is inclined by beta to the wheel plane (paper eq. 7); rRef must be the wheel centre"
      extends PlaneGeometry;
      parameter Units.Length R = 0.05 "radius of the generating arc (the omni wheel radius)";
      parameter Integer nRollers = 4 "rollers per wheel";
      parameter Units.Angle beta = 0 "inclination of the roller axis to the wheel plane";
      parameter Real handover = 1e-5 "dead band in sin(gamma) at a roller change (see valid)";
      final parameter Real alpha = 3.141592653589793/nRollers "half the opening angle of the roller";
      final parameter Units.Length R1 = R*cos(alpha) "distance from the roller axis to the wheel centre";
      Real ip[3] "roller axis i'";
      Real jp[3] "unit vector from the roller centre to the wheel centre";
      Real i[3] "roller axis turned back into the wheel plane";
      Real ju[3] "jp, or -jp for a roller above the wheel centre (its lower side faces the wheel centre)";
      Real s "sin(gamma) = i*n";
    equation
      ip = TB*{1, 0, 0};
      jp = (rRef - rB)/sqrt((rRef - rB)*(rRef - rB)) "rRef: the wheel centre";
      i = cos(beta)*ip + sin(beta)*cross(ip, jp);
      ju = if noEvent(jp*n >= 0) then jp else -jp;
      s = i*n;
      // Eq. (7) holds while the lowest point is on the arc; past that, the lower tip (half length
      // R*sin(alpha)/cos(beta) along the axis) is the closest point (continuous for beta = 0).
      PB = if noEvent(abs(s) < sin(alpha)) then rB + R1*ju - R*n - R1*tan(beta)*s/sqrt(1 - s*s)*cross(ju, i)
           elseif noEvent(ip*n > 0) then rB - R*sin(alpha)/cos(beta)*ip
           else rB + R*sin(alpha)/cos(beta)*ip;
      // At a roller change both rollers' contact points are the same tip: two rigid contacts there
      // make the normal forces non-unique (a singular loop). The joints' drift lets both satisfy
      // |s| < sin(alpha) for a moment, so the handover has a small dead band: for about
      // handover/omega seconds neither roller carries the wheel (1e-5 at 10 rad/s: 1.4 us).
      valid = if noEvent(abs(s) < sin(alpha) - handover and (rB - rA)*n < R) then 1 else -1;
    end InclinedRollerOnPlane;
  end Geometries;

  package Elastic "Socket 2 models"
    model Rigid "Rigid unilateral contact: in contact the normal relative acceleration is zero (der(v_n) = 0)"
      extends Interfaces.PartialNormalElastic;
      parameter Units.Rate wStab(min = 0) = 0
        "drift stabilization (Baumgarte): der(v_n) + 2*wStab*v_n + wStab^2*h = 0; 0 is the paper's der(v_n) = 0";
      Units.Acceleration Drelvn "derivative of the normal relative velocity";
    equation
      // The acceleration-level form of Kosenko & Gerasimov: h = 0 or relvn = 0 made the solver fail.
      // Imposed at acceleration level, the gap and the normal velocity drift with the integration
      // error, and a roller that comes into contact keeps whatever normal velocity it arrives with;
      // wStab > 0 makes both decay (critically damped, time constant 1/wStab).
      Drelvn = der(relvn);
      active = valid;
      residual = Drelvn + 2*wStab*relvn + wStab^2*h;
      Epot = 0;
    end Rigid;

    model RigidVelocity "Rigid contact imposed at velocity level (v_n = 0); the papers report this form failing"
      extends Interfaces.PartialNormalElastic;
    equation
      active = valid;
      residual = relvn;
      Epot = 0;
    end RigidVelocity;

    model RigidGap "Rigid contact imposed at position level (h = 0); the papers report this form failing"
      extends Interfaces.PartialNormalElastic;
    equation
      active = valid;
      residual = h;
      Epot = 0;
    end RigidGap;

    model LinearPenalty "Linear spring in the normal direction: Fn = k*penetration + Fd (never pulling)"
      extends Interfaces.PartialNormalElastic;
      parameter Units.TranslationalSpringConstant k = 1e5 "contact stiffness";
    equation
      active = -h;
      residual = Fn - noEvent(max(k*(-h) + Fd, 0));
      Epot = if noEvent(h < 0) then 0.5*k*h^2 else 0;
    end LinearPenalty;

    model Hertz "Hertz law: Fn = k*penetration^(3/2) + Fd (never pulling)"
      extends Interfaces.PartialNormalElastic;
      parameter Real k = 1e7 "Hertz constant (N/m^1.5)";
    equation
      active = -h;
      residual = Fn - noEvent(max((if h < 0 then k*(-h)^1.5 else 0) + Fd, 0));
      Epot = if noEvent(h < 0) then 0.4*k*(-h)^2.5 else 0;
    end Hertz;
  end Elastic;

  package Damping "Socket 3 models"
    model None "No normal damping"
      extends Interfaces.PartialNormalDamping;
    equation
      Fd = 0;
    end None;

    model Linear "Linear normal damping: Fd = -d*relvn"
      extends Interfaces.PartialNormalDamping;
      parameter Units.TranslationalDampingConstant d = 1e3 "damping coefficient";
    equation
      Fd = -d*relvn;
    end Linear;

    model HuntCrossley "Nonlinear damping growing with the penetration: Fd = -d*penetration^p*relvn"
      extends Interfaces.PartialNormalDamping;
      parameter Real d = 1e5 "damping coefficient (N.s/m^(1+p))";
      parameter Real p = 1.5 "exponent of the penetration";
    equation
      Fd = if noEvent(h < 0) then -d*(-h)^p*relvn else 0;
    end HuntCrossley;
  end Damping;

  package Friction "Socket 4 models: friction laws"
    model None "Frictionless contact"
      extends Interfaces.PartialTangentialForce;
    equation
      Ft = zeros(3);
    end None;

    model RegularizedCoulomb "Coulomb friction with a linear zone |vt| < delta (Kosenko 2015, Gerasimov 2018 sec. 3.4)"
      extends Interfaces.PartialTangentialForce;
      parameter Real mu = 0.5 "friction coefficient";
      parameter Units.Velocity delta(min = 0) = 1e-3 "width of the linear zone";
    equation
      // delta = 0 would be the discontinuous Coulomb law (and 0/0 at rest): under noEvent the
      // integrator crawls through every sign change of the slip, so it is refused up front.
      assert(delta > 0, getInstanceName() + ": the linear zone delta of the regularized Coulomb law must be positive (delta = "
        + String(delta) + " m/s); a small value such as 1e-3 m/s keeps the law continuous");
      Ft = -mu*Fn*(if noEvent(vt*vt <= delta^2) then vt/delta else vt/sqrt(vt*vt));
    end RegularizedCoulomb;

    model Viscous "Viscous friction: Ft = -gamma*vt (Gerasimov 2018 sec. 3.4)"
      extends Interfaces.PartialTangentialForce;
      parameter Units.TranslationalDampingConstant gamma = 1e3 "viscous coefficient";
    equation
      Ft = -gamma*vt;
    end Viscous;

    model ExudynRegularized "Regularized dry friction of Exudyn's ObjectConnectorRollingDiscPenalty (isotropic)"
      extends Interfaces.PartialTangentialForce;
      parameter Real mu = 0.5 "dry friction coefficient";
      parameter Units.InverseVelocity dv = 0 "viscous friction coefficient: mu grows to mu + dv*|vt|";
      parameter Units.Velocity vmu = 1e-2 "dryFrictionProportionalZone";
      parameter Boolean useLinearProportionalZone = false "phi = v/vmu instead of (2 - v/vmu)*v/vmu";
    protected
      Real v "slip speed |vt|, with a derivative at zero slip";
    equation
      v = if noEvent(vt*vt > 0) then sqrt(vt*vt) else 0;
      Ft = -(mu + dv*v)*Fn*(if noEvent(v > vmu) then vt/v
        elseif useLinearProportionalZone then vt/vmu else (2 - v/vmu)*vt/vmu);
    end ExudynRegularized;
  end Friction;

  partial model ContactConstraintTemplate "Point contact of bodies A and B with four sockets (Kosenko 2015, Fig. 3)"
    extends Joints.Constraint;
    replaceable model Geometry = Interfaces.PartialGeometry constrainedby Interfaces.PartialGeometry "socket 1";
    replaceable model NormalElastic = Interfaces.PartialNormalElastic constrainedby Interfaces.PartialNormalElastic "socket 2";
    replaceable model NormalDamping = Interfaces.PartialNormalDamping constrainedby Interfaces.PartialNormalDamping "socket 3";
    replaceable model TangentialForce = Interfaces.PartialTangentialForce constrainedby Interfaces.PartialTangentialForce "socket 4";
    input Units.Length rRef[3] = frame_b.r "reference point handed to the geometry socket (bind it to the wheel centre for inclined rollers)";
    Geometry geometry(rA = frame_a.r, TA = frame_a.T, rB = frame_b.r, TB = frame_b.T, rRef = rRef);
    NormalDamping damping(h = h, relvn = relvn);
    NormalElastic elastic(h = h, valid = geometry.valid, relvn = relvn, Fn = Fn, Fd = damping.Fd);
    TangentialForce tangential(Fn = Fn, vt = vt, n = n);
    Real n[3] "contact normal, world";
    Units.Length h "signed gap";
    Units.Velocity vr[3] "velocity of B's contact point relative to A";
    Units.Velocity relvn(stateSelect = StateSelect.never) "normal relative velocity (a function of the bodies' states: never a state itself)";
    Units.Velocity vt[3] "tangential slip velocity";
    Units.Force Fn "normal force on B";
    Units.Force Ft[3] "tangential force on B";
    parameter Units.Length maxPenetration(min = 0) = 1e-3
      "overlap of the bodies allowed while the contact is inactive; more stops the run";
  equation
    // An inactive contact whose bodies overlap means the geometry socket has left the region it
    // describes (a wheel tipped over onto parts no socket models, say): the bodies would pass
    // through each other and every later value would be wrong, so the run stops here.
    assert(noEvent(elastic.active > 0 or h > -maxPenetration),
      getInstanceName() + ": the bodies overlap by " + String(-h) + " m while the contact is inactive: the geometry socket "
      + "no longer describes how they touch (for a wheel: it tipped over onto parts the contact does "
      + "not model), so the motion past this time would be wrong");
    n = geometry.n;
    h = geometry.h;
    P = geometry.PB;
    vr = frame_b.v + cross(frame_b.w, P - frame_b.r) - frame_a.v - cross(frame_a.w, P - frame_a.r);
    relvn = vr*n;
    vt = vr - relvn*n;
    FB = Fn*n + Ft;
    MA = zeros(3);
    // Flight or contact, switched without events: the same number of equations in both branches.
    if noEvent(elastic.active > 0) then
      0 = elastic.residual;
      Ft = tangential.Ft;
    else
      Fn = 0;
      Ft = zeros(3);
    end if;
  end ContactConstraintTemplate;

  model PointContact "The template, instantiable: fill all four sockets with redeclare when declaring it"
    extends ContactConstraintTemplate;
  end PointContact;

  partial model RigidCoulombContact "Stage 1 of Fig. 3: rigid normal contact, no damping, regularized Coulomb friction"
    extends ContactConstraintTemplate(
      redeclare model NormalElastic = Elastic.Rigid,
      redeclare model NormalDamping = Damping.None,
      redeclare replaceable model TangentialForce = Friction.RegularizedCoulomb(mu = muFriction, delta = deltaFriction)
        constrainedby Interfaces.PartialTangentialForce);
    parameter Real muFriction = 0.5 "friction coefficient";
    parameter Units.Velocity deltaFriction = 1e-3 "width of the linear zone of the friction law";
  end RigidCoulombContact;

  model RollerPlaneContact "Stage 2: rigid contact of a spindle roller (body B) with the plane (body A)"
    extends RigidCoulombContact(redeclare replaceable model Geometry = Geometries.RollerOnPlane(R = R, nRollers = nRollers)
      constrainedby Interfaces.PartialGeometry);
    parameter Units.Length R = 0.05 "radius of the roller's generating arc (the wheel radius)";
    parameter Integer nRollers = 4 "rollers per wheel";
  end RollerPlaneContact;

  model CompliantDiscContact "Compliant rolling-disc contact with the parameters and equations of Exudyn's RollingDiscPenalty"
    extends ContactConstraintTemplate(
      redeclare model Geometry = Geometries.DiscOnPlane(radius = radius, discAxis = discAxis),
      redeclare model NormalElastic = Elastic.LinearPenalty(k = contactStiffness),
      redeclare model NormalDamping = Damping.Linear(d = contactDamping),
      redeclare model TangentialForce = Friction.ExudynRegularized(mu = dryFriction, dv = viscousFriction,
        vmu = dryFrictionProportionalZone, useLinearProportionalZone = useLinearProportionalZone));
    parameter Units.Length radius = 0.5 "discRadius";
    parameter Real discAxis[3] = {1, 0, 0} "disc axis, B axes";
    parameter Units.TranslationalSpringConstant contactStiffness = 1e5 "k_c";
    parameter Units.TranslationalDampingConstant contactDamping = 1e3 "d_c";
    parameter Real dryFriction = 0.5 "mu (isotropic: mu_x = mu_y)";
    parameter Units.InverseVelocity viscousFriction = 0 "d (isotropic)";
    parameter Units.Velocity dryFrictionProportionalZone = 1e-2 "v_mu";
    parameter Boolean useLinearProportionalZone = false;
  end CompliantDiscContact;
end Contacts;
