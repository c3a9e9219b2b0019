model RotatedRobotTrolley "The paper's robot turned rigidly by theta about the origin: a consistent configuration other than eq. (34)"
  extends RobotTrolley(
    platform(x_start = cos(theta)*(20*a) - sin(theta)*(0), y_start = sin(theta)*(20*a) + cos(theta)*(0),
      phi_start = theta, vx_start = cos(theta)*v0, vy_start = sin(theta)*v0),
    carrier2(x_start = cos(theta)*(24*a) - sin(theta)*(0), y_start = sin(theta)*(24*a) + cos(theta)*(0),
      phi_start = theta, vx_start = cos(theta)*v0, vy_start = sin(theta)*v0),
    carrier3(x_start = cos(theta)*(16*a) - sin(theta)*(0), y_start = sin(theta)*(16*a) + cos(theta)*(0),
      phi_start = theta, vx_start = cos(theta)*v0, vy_start = sin(theta)*v0),
    link4(x_start = cos(theta)*(20*a + cx/2) - sin(theta)*(cy/2 - by), y_start = sin(theta)*(20*a + cx/2) + cos(theta)*(cy/2 - by),
      phi_start = theta, vx_start = cos(theta)*v0, vy_start = sin(theta)*v0),
    link5(x_start = cos(theta)*(20*a - cx/2) - sin(theta)*(cy/2 - by), y_start = sin(theta)*(20*a - cx/2) + cos(theta)*(cy/2 - by),
      phi_start = theta, vx_start = cos(theta)*v0, vy_start = sin(theta)*v0),
    slider(x_start = cos(theta)*(20*a) - sin(theta)*(0), y_start = sin(theta)*(20*a) + cos(theta)*(0),
      phi_start = theta, vx_start = cos(theta)*v0, vy_start = sin(theta)*v0),
    trolley(x_start = cos(theta)*(5*a) - sin(theta)*(0), y_start = sin(theta)*(5*a) + cos(theta)*(0),
      phi_start = theta, vx_start = cos(theta)*v0, vy_start = sin(theta)*v0));
  parameter Real theta(unit = "rad") = 0.3;
end RotatedRobotTrolley;
