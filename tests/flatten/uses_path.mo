model UsesPath
  PathLib.Const c;
  Real z = c.y + 1;
end UsesPath;
