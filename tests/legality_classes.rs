//! Legality of classes: what each specialized kind of class may contain and extend (MLS 4.5.2,
//! 4.7, 4.8, 4.9.5, 7.1.3, 7.1.4, 12.2). Each illegal model must be refused with a located
//! message naming the rule; the legal variants next to them must still flatten.

mod flatten_common;
use flatten_common::{assert_err, flat};

// --- MLS 7.1.3: which kind may extend which -----------------------------------------------

#[test]
fn block_cannot_extend_connector() {
    assert_err(
        "model M\n  connector Pin\n    Real v;\n    flow Real i;\n  end Pin;\n  block B\n    extends Pin;\n  end B;\n  B b;\nend M;\n",
        Some("M"),
        &[
            "test.mo:7:13",
            "a block cannot extend the connector",
            "MLS 7.1.3",
        ],
    );
}

#[test]
fn record_cannot_extend_model() {
    assert_err(
        "model M\n  model Body\n    Real m = 1;\n  end Body;\n  record R\n    extends Body;\n  end R;\n  R r;\nend M;\n",
        Some("M"),
        &[
            "test.mo:6:13",
            "a record cannot extend the model",
            "a record may only extend: record, class",
        ],
    );
}

#[test]
fn package_cannot_extend_function() {
    assert_err(
        "model M\n  function f\n    input Real u;\n    output Real y = u;\n  end f;\n  package P\n    extends f;\n    constant Real c = 1;\n  end P;\n  Real x = P.c;\nend M;\n",
        Some("M"),
        &["a package cannot extend the function", "MLS 7.1.3"],
    );
}

#[test]
fn legal_cross_kind_bases() {
    // model from block and record, block from record, connector from type and record,
    // a class from a model.
    flat(
        "model M\n  record Data\n    parameter Real k = 2;\n  end Data;\n  block Gain\n    extends Data;\n    input Real u = 1;\n    output Real y = k * u;\n  end Gain;\n  model Wrapped\n    extends Gain;\n  end Wrapped;\n  connector Volt\n    extends Real;\n  end Volt;\n  connector Port\n    extends Data;\n    Real e;\n    flow Real f;\n  end Port;\n  class C\n    extends Wrapped;\n  end C;\n  C c;\n  Volt v = 3;\nend M;\n",
        Some("M"),
    );
}

// --- MLS 7.1.4: transitively non-replaceable base classes ---------------------------------

#[test]
fn extending_a_replaceable_class() {
    assert_err(
        "model M\n  replaceable model Inner\n    Real x = 1;\n  end Inner;\n  model User\n    extends Inner;\n  end User;\n  User u;\nend M;\n",
        Some("M"),
        &[
            "test.mo:6:13",
            "is replaceable; a base class must not be",
            "MLS 7.1.4",
        ],
    );
}

// --- MLS 4.5.2: array, prefixed and simple-type bases ---------------------------------------

#[test]
fn array_class_base_with_component() {
    assert_err(
        "model M\n  model Cell\n    Real q = 1;\n  end Cell;\n  model Row = Cell[4];\n  model Grid\n    extends Row;\n    Real total = 0;\n  end Grid;\n  Grid g;\nend M;\n",
        Some("M"),
        &[
            "test.mo:8:5",
            "which is an array class, so it cannot also have components",
            "MLS 4.5.2",
        ],
    );
}

#[test]
fn prefixed_class_base_with_other_base() {
    assert_err(
        "model M\n  model Cell\n    Real q = 1;\n  end Cell;\n  model InCell = output Cell;\n  model Other\n    Real w = 2;\n  end Other;\n  model Both\n    extends InCell;\n    extends Other;\n  end Both;\n  Both b;\nend M;\n",
        Some("M"),
        &[
            "test.mo:11:13",
            "declared with a prefix",
            "another non-empty base class",
            "MLS 4.5.2",
        ],
    );
}

// --- MLS 4.7: contents of the specialized classes -------------------------------------------

#[test]
fn record_with_equation() {
    assert_err(
        "model M\n  record Point\n    Real x;\n  equation\n    x = 2;\n  end Point;\n  Point p;\nend M;\n",
        Some("M"),
        &["test.mo:5:5", "a record cannot have equations", "MLS 4.7"],
    );
}

#[test]
fn record_with_algorithm() {
    assert_err(
        "model M\n  record Point\n    Real x;\n  algorithm\n    x := 2;\n  end Point;\n  Point p;\nend M;\n",
        Some("M"),
        &["test.mo:5:5", "a record cannot have algorithms"],
    );
}

#[test]
fn record_with_protected_component() {
    assert_err(
        "model M\n  record Point\n    Real x = 1;\n  protected\n    Real hidden = 2;\n  end Point;\n  Point p;\nend M;\n",
        Some("M"),
        &["test.mo:5:10", "a record cannot have protected elements"],
    );
}

#[test]
fn record_element_prefixes() {
    for (word, decl) in [
        ("flow", "flow Real a = 1;"),
        ("stream", "stream Real a = 1;"),
        ("input", "input Real a = 1;"),
        ("output", "output Real a = 1;"),
        ("inner", "inner Real a = 1;"),
    ] {
        let text = format!("model M\n  record R\n    {decl}\n  end R;\n  R r;\nend M;\n");
        assert_err(
            &text,
            Some("M"),
            &[
                &format!("an element of a record cannot be `{word}`"),
                "MLS 4.7",
            ],
        );
    }
}

#[test]
fn connector_with_equation_or_inner() {
    assert_err(
        "model M\n  connector Flange\n    Real s;\n    flow Real f;\n  equation\n    s = 0;\n  end Flange;\n  Flange a;\nend M;\n",
        Some("M"),
        &["test.mo:6:5", "a connector cannot have equations"],
    );
    assert_err(
        "model M\n  connector Flange\n    outer Real s;\n    flow Real f;\n  end Flange;\n  inner Real s = 1;\n  Flange a;\nend M;\n",
        Some("M"),
        &[
            "test.mo:3:16",
            "an element of a connector cannot be `outer`",
        ],
    );
}

#[test]
fn package_with_variable() {
    assert_err(
        "model M\n  package P\n    Real v = 1;\n    constant Real c = 2;\n  end P;\n  Real x = P.c;\nend M;\n",
        Some("M"),
        &[
            "test.mo:3:10",
            "a package may only contain classes and constants",
        ],
    );
}

#[test]
fn block_connector_without_direction() {
    assert_err(
        "model M\n  connector Pin\n    Real v;\n    flow Real i;\n  end Pin;\n  block B\n    Pin p;\n  end B;\n  B b;\nend M;\n",
        Some("M"),
        &[
            "test.mo:7:9",
            "the connector `p.v` of a block has neither `input` nor `output`",
            "MLS 4.7",
        ],
    );
    // Directed connectors are fine, and so are parameters inside them.
    flat(
        "model M\n  connector In = input Real;\n  connector Sig\n    parameter Real scale = 1;\n    output Real s;\n  end Sig;\n  block B\n    In u = 1;\n    Sig y(s = 2 * u);\n  end B;\n  B b;\nend M;\n",
        Some("M"),
    );
}

#[test]
fn operator_record_long_extends() {
    assert_err(
        "model M\n  operator record Money\n    Real amount;\n  end Money;\n  operator record Euro\n    extends Money;\n  end Euro;\n  Euro e(amount = 1);\nend M;\n",
        Some("M"),
        &[
            "test.mo:6:13",
            "only a short definition of an operator record or connector may",
            "MLS 4.7",
        ],
    );
    // A short connector of an operator record is the one legal way.
    flat(
        "model M\n  operator record Money\n    Real amount;\n  end Money;\n  connector MoneyOut = output Money;\n  MoneyOut m(amount = 1);\nend M;\n",
        Some("M"),
    );
}

#[test]
fn extending_the_scope_of_an_operator_record() {
    assert_err(
        "model M\n  package Units\n    operator record Q\n      Real v;\n    end Q;\n  end Units;\n  package More\n    extends Units;\n    constant Real k = 1;\n  end More;\n  Real x = More.k;\nend M;\n",
        Some("M"),
        &["test.mo:8:13", "encloses the operator record", "MLS 4.7"],
    );
}

// --- MLS 12.2: functions -------------------------------------------------------------------

#[test]
fn function_public_variable() {
    assert_err(
        "model M\n  function f\n    input Real u;\n    output Real y;\n    Real tmp;\n  algorithm\n    tmp := u;\n    y := tmp;\n  end f;\n  Real x = f(time);\nend M;\n",
        Some("M"),
        &[
            "test.mo:5:10",
            "public component `tmp` of a function must be an `input` or an `output`",
            "MLS 12.2",
        ],
    );
}

#[test]
fn function_assigns_input() {
    assert_err(
        "model M\n  function f\n    input Integer n;\n    output Integer y;\n  algorithm\n    if n > 0 then\n      n := n - 1;\n    end if;\n    y := n;\n  end f;\n  Integer x = f(3);\nend M;\n",
        Some("M"),
        &[
            "test.mo:7:7",
            "the input `n` of a function cannot be assigned",
        ],
    );
}

#[test]
fn function_two_algorithm_sections() {
    assert_err(
        "model M\n  function f\n    input Real u;\n    output Real y;\n  protected\n    Real t;\n  algorithm\n    t := u;\n  algorithm\n    y := t;\n  end f;\n  Real x = f(time);\nend M;\n",
        Some("M"),
        &["test.mo:10:5", "at most one algorithm section"],
    );
}

#[test]
fn function_outer_element() {
    assert_err(
        "model M\n  function f\n    input Real u;\n    output Real y;\n  protected\n    outer Real g;\n  algorithm\n    y := u * g;\n  end f;\n  inner Real g = 9.81;\n  Real x = f(time);\nend M;\n",
        Some("M"),
        &["test.mo:6:16", "an element of a function cannot be `outer`"],
    );
}

#[test]
fn class_short_definition_of_a_function_is_not_callable() {
    assert_err(
        "model M\n  function sq\n    input Real u;\n    output Real y = u * u;\n  end sq;\n  class sq2 = sq;\n  Real x = sq2(2);\nend M;\n",
        Some("M"),
        &["is not a function"],
    );
}

// --- MLS 4.9.5 and 4.8: names ----------------------------------------------------------------

#[test]
fn enumeration_literals() {
    assert_err(
        "model M\n  type Color = enumeration(red, green, red);\n  Color c = Color.green;\nend M;\n",
        Some("M"),
        &["test.mo:2:8", "has the literal `red` twice", "MLS 4.9.5"],
    );
    assert_err(
        "model M\n  type Level = enumeration(low, max);\n  Level l = Level.low;\nend M;\n",
        Some("M"),
        &[
            "literal `max`, which is the name of an attribute",
            "MLS 4.9.5",
        ],
    );
}

#[test]
fn class_named_like_a_predefined_type() {
    assert_err(
        "package P\n  model Integer\n    Real x = 1;\n  end Integer;\nend P;\n",
        Some("P.Integer"),
        &[
            "test.mo:2:9",
            "`Integer` is the name of a predefined type",
            "MLS 4.8",
        ],
    );
}

// --- MLS 7.3.2, 7.3.3: redeclarations ---------------------------------------------------------

#[test]
fn constant_cannot_be_redeclared() {
    // As an element of a derived class and as a modifier.
    assert_err(
        "model M\n  model Base\n    replaceable constant Real g = 9.81;\n  end Base;\n  model Moon\n    extends Base;\n    redeclare Real g = 1.62;\n  end Moon;\n  Moon m;\nend M;\n",
        Some("M"),
        &[
            "test.mo:7:20",
            "`g` is a constant and cannot be redeclared",
            "MLS 7.3.3",
        ],
    );
    assert_err(
        "model M\n  model Base\n    replaceable constant Real g = 9.81;\n  end Base;\n  Base b(redeclare Real g = 1.62);\nend M;\n",
        Some("M"),
        &["`g` is a constant and cannot be redeclared"],
    );
}

#[test]
fn redeclaration_keeps_visibility() {
    assert_err(
        "model M\n  model Base\n  protected\n    replaceable Real gain = 1;\n  end Base;\n  model Open\n    extends Base;\n    redeclare Real gain = 2;\n  end Open;\n  Open o;\nend M;\n",
        Some("M"),
        &[
            "test.mo:8:20",
            "`gain` is protected and cannot be redeclared as public",
            "MLS 7.3.3",
        ],
    );
    assert_err(
        "model M\n  model Base\n    replaceable model Law\n      Real k = 1;\n    end Law;\n  end Base;\n  model Hidden\n    extends Base;\n  protected\n    redeclare model Law\n      Real k = 2;\n    end Law;\n  end Hidden;\n  Hidden h;\nend M;\n",
        Some("M"),
        &["the class `Law` is public and cannot be redeclared as protected"],
    );
}

#[test]
fn redeclaring_a_non_replaceable_redeclaration() {
    assert_err(
        "model M\n  model P1\n    Real a = 1;\n  end P1;\n  model P2\n    Real a = 2;\n  end P2;\n  model Holder\n    replaceable P1 part;\n  end Holder;\n  model Fixed\n    extends Holder(redeclare P1 part);\n  end Fixed;\n  model Again\n    extends Fixed(redeclare P2 part);\n  end Again;\n  Again x;\nend M;\n",
        Some("M"),
        &["`part` cannot be redeclared again", "MLS 7.3.3"],
    );
    // With `redeclare replaceable` it may be redeclared again.
    flat(
        "model M\n  model P1\n    Real a = 1;\n  end P1;\n  model P2\n    Real a = 2;\n  end P2;\n  model Holder\n    replaceable P1 part;\n  end Holder;\n  model Open\n    extends Holder(redeclare replaceable P1 part);\n  end Open;\n  model Again\n    extends Open(redeclare P2 part);\n  end Again;\n  Again x;\nend M;\n",
        Some("M"),
    );
}

#[test]
fn non_replaceable_redeclared_with_its_own_type() {
    // Changing only the dimensions of a non-replaceable element is allowed (MLS 7.3.3).
    flat(
        "model M\n  model A\n    Real v[:] = fill(1.0, size(v, 1));\n  end A;\n  A a(redeclare Real v[3]);\nend M;\n",
        Some("M"),
    );
}

#[test]
fn replaceable_type_must_fit_constrainedby() {
    assert_err(
        "model M\n  model Small\n    Real x = 1;\n  end Small;\n  model Big\n    Real x = 1;\n    Real y = 2;\n  end Big;\n  replaceable Small s constrainedby Big;\nend M;\n",
        Some("M"),
        &[
            "the type of the replaceable `s` is not a subtype of its constraining type",
            "MLS 7.3.2",
        ],
    );
    assert_err(
        "model M\n  model Big\n    Real x = 1;\n    Real y = 2;\n  end Big;\n  replaceable model Small\n    Real x = 1;\n  end Small constrainedby Big;\n  Small s;\nend M;\n",
        Some("M"),
        &["the type of the replaceable `Small` is not a subtype"],
    );
}

#[test]
fn class_extends_needs_a_replaceable_class() {
    assert_err(
        "model M\n  model Base\n    model Law\n      Real k = 1;\n    end Law;\n  end Base;\n  model User\n    extends Base;\n    redeclare model extends Law\n      Real j = 2;\n    end Law;\n    Law l;\n  end User;\n  User u;\nend M;\n",
        Some("M"),
        &[
            "cannot be extended with `redeclare model extends`",
            "MLS 7.3.1",
        ],
    );
}

// --- MLS 7.2.4: one modification, one value per element -------------------------------------

#[test]
fn element_modified_twice() {
    assert_err(
        "model M\n  model Tank\n    parameter Real level = 1;\n  end Tank;\n  model Full = Tank(level = 2, level = 3);\n  Full t;\nend M;\n",
        Some("M"),
        &[
            "test.mo:5:32",
            "`level` is modified twice in the same modification",
            "MLS 7.2.4",
        ],
    );
    assert_err(
        "model M\n  Real x(start = 1, start = 2) = time;\nend M;\n",
        Some("M"),
        &["`start` is modified twice"],
    );
    // Different attributes of one element are fine.
    flat(
        "model M\n  Real x(start = 1, fixed = true);\nequation\n  der(x) = -x;\nend M;\n",
        Some("M"),
    );
}
