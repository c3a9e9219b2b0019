package PathLib "found through MODELICAPATH"
  model Const
    Real y = 5;
  end Const;
end PathLib;
