//! kubectl's JSONPath templates (`-o jsonpath=…`), evaluated on a report's `-o json` document.
//!
//! kubectl's dialect is not RFC 9535 JSONPath: a template is text with `{…}` actions, an action
//! is a path (`.a.b`, `['a.b']`, `[n]`, `[start:end:step]`, `[*]`, `..`, `[a,b]`,
//! `[?(@.x=="y")]`, `@`, `$`), a quoted literal (`{"\n"}`), or `range PATH` … `end`. No crate
//! implements that dialect, so this is a small one written from kubectl's documentation page
//! "JSONPath Support" and the behaviour client-go's `util/jsonpath` tests pin
//! (staging/src/k8s.io/client-go/util/jsonpath/jsonpath_test.go; the unit tests below carry
//! those cases' names). As `kubectl get` runs it: missing keys print nothing
//! (`--allow-missing-template-keys` is true by default), strings print raw, objects and arrays
//! print as compact JSON, the values of one action are separated by a space.
//!
//! Where this differs from client-go, on purpose: a filter whose left side is missing on an
//! element skips that element (client-go fails the whole template); a slice's end past the
//! list is clipped to it (an index past it still fails).

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::Value;

/// A parsed template.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Template {
    items: Vec<Item>,
}

/// One piece of a template.
#[derive(Debug, Clone, PartialEq)]
enum Item {
    /// Text outside the braces, or a quoted literal inside them.
    Text(String),
    /// A path whose values are printed.
    Path(Vec<Step>),
    /// `{range PATH}` … `{end}`: the body, once per value of the path.
    Range(Vec<Step>, Vec<Item>),
}

/// One step of a path, applied to every value the previous step produced.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    /// `.name` (a map key; nothing on other values).
    Field(String),
    /// `.*` / `[*]` on a map: its values.
    Wildcard,
    /// `..`: the value and everything below it that has children.
    Recursive,
    /// `[n]`: one element (negative: from the end).
    Index(i64),
    /// `[start:end:step]`.
    Slice(Option<i64>, Option<i64>, Option<i64>),
    /// `[a,b]`: each path's values, in turn.
    Union(Vec<Vec<Step>>),
    /// `[?(left OP right)]` or `[?(left)]` (exists).
    Filter(Vec<Step>, Option<(Cmp, Vec<Step>)>),
    /// A literal inside an action (a quoted string, a number, `true`/`false`).
    Literal(Value),
    /// A word kubectl does not know (an execution error, as in client-go).
    Identifier(String),
}

/// A filter's comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A template that does not parse; the message is client-go's for the same mistake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError(pub String);

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A template that fails on this document (an index past the end, a filter on a map).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ExecError(pub String);

impl std::fmt::Display for ExecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn perr<T>(message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError(message.into()))
}

/// The deepest nesting of ranges, unions and filters a template may have (a guard against a
/// template built to exhaust the stack).
const MAX_DEPTH: usize = 64;

impl Template {
    /// Parses kubectl's template syntax.
    pub(crate) fn parse(text: &str) -> Result<Self, ParseError> {
        // Flat list of pieces first (text, actions), then ranges are nested.
        let mut flat = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                flat.push(Flat::Item(Item::Text(rest[..open].to_owned())));
            }
            let after = &rest[open + 1..];
            let close = match action_end(after) {
                Ok(close) => close,
                // The mistake inside the action first (`{.a[`: an unterminated array), as
                // client-go reports it, then the missing brace.
                Err(e) => {
                    let line = after.split(['\n', '\r']).next().unwrap_or_default();
                    parse_path(line, 0)?;
                    return Err(e);
                }
            };
            flat.push(parse_action(&after[..close], 0)?);
            rest = &after[close + 1..];
        }
        if !rest.is_empty() {
            flat.push(Flat::Item(Item::Text(rest.to_owned())));
        }
        let mut iter = flat.into_iter();
        let items = nest(&mut iter, 0)?;
        Ok(Self { items })
    }

    /// Runs the template on `doc` and returns what kubectl would print.
    pub(crate) fn execute(&self, doc: &Value) -> Result<String, ExecError> {
        let mut out = String::new();
        run_items(&self.items, doc, doc, &mut out)?;
        Ok(out)
    }

    /// The values of a template made of one path (a custom column): every value of every
    /// action, in order; literals and text count as values too, as in client-go.
    pub(crate) fn values<'a>(&self, doc: &'a Value) -> Result<Vec<Cow<'a, Value>>, ExecError> {
        let mut all = Vec::new();
        for item in &self.items {
            match item {
                Item::Text(t) => all.push(Cow::Owned(Value::String(t.clone()))),
                Item::Path(steps) => all.extend(eval(steps, vec![Cow::Borrowed(doc)], doc)?),
                Item::Range(..) => {
                    return Err(ExecError("range is not allowed in a column".to_owned()));
                }
            }
        }
        Ok(all)
    }
}

/// A piece before ranges are nested.
enum Flat {
    Item(Item),
    Range(Vec<Step>),
    End,
}

/// Where the action that starts at `text` (just after its `{`) ends: the first `}` outside
/// quotes. An action never spans a line, as in client-go.
fn action_end(text: &str) -> Result<usize, ParseError> {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            if c == '\n' {
                return perr("unterminated quoted string");
            }
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '}' => return Ok(i),
            '\n' | '\r' => return perr("unclosed action"),
            '"' | '\'' => quote = Some(c),
            _ => {}
        }
    }
    if quote.is_some() {
        return perr("unterminated quoted string");
    }
    perr("unclosed action")
}

/// Nests the flat pieces: a `range` owns everything up to its `end` (or the template's end,
/// as client-go runs an unclosed range).
fn nest(iter: &mut std::vec::IntoIter<Flat>, depth: usize) -> Result<Vec<Item>, ParseError> {
    if depth > MAX_DEPTH {
        return perr("ranges nested too deep");
    }
    let mut items = Vec::new();
    while let Some(piece) = iter.next() {
        match piece {
            Flat::Item(item) => items.push(item),
            Flat::Range(steps) => {
                let body = nest(iter, depth + 1)?;
                items.push(Item::Range(steps, body));
            }
            Flat::End if depth == 0 => return perr("not in range, nothing to end"),
            Flat::End => return Ok(items),
        }
    }
    Ok(items)
}

/// Parses the inside of one `{…}`.
fn parse_action(text: &str, depth: usize) -> Result<Flat, ParseError> {
    let trimmed = text.trim();
    if trimmed == "end" {
        return Ok(Flat::End);
    }
    if let Some(rest) = trimmed.strip_prefix("range")
        && (rest.is_empty() || rest.starts_with([' ', '\t']))
    {
        return Ok(Flat::Range(parse_path(rest, depth)?));
    }
    let steps = parse_path(text, depth)?;
    // A lone literal (`{"\n"}`) is text.
    if let [Step::Literal(Value::String(s))] = steps.as_slice() {
        return Ok(Flat::Item(Item::Text(s.clone())));
    }
    Ok(Flat::Item(Item::Path(steps)))
}

/// Parses a path: a sequence of steps.
fn parse_path(text: &str, depth: usize) -> Result<Vec<Step>, ParseError> {
    if depth > MAX_DEPTH {
        return perr("expression nested too deep");
    }
    let chars: Vec<char> = text.chars().collect();
    let mut steps = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '@' | '$' => i += 1,
            '.' if chars.get(i + 1) == Some(&'.') => {
                if steps.last() == Some(&Step::Recursive) {
                    return perr("invalid multiple recursive descent");
                }
                steps.push(Step::Recursive);
                i += 2;
                // `...x` is `..` then `.x`; `..x` is `..` then `x`.
                if chars.get(i).is_some_and(|c| is_alphanumeric(*c)) {
                    let (name, next) = field_name(&chars, i);
                    steps.push(field_step(name));
                    i = next;
                }
            }
            '.' => {
                let (name, next) = field_name(&chars, i + 1);
                i = next;
                if !name.is_empty() {
                    steps.push(field_step(name));
                }
            }
            '[' if chars[i..].starts_with(&['[', '?', '(']) => {
                let (step, next) = parse_filter(&chars, i + 3, depth)?;
                steps.push(step);
                i = next;
            }
            '[' => {
                let close = chars[i..]
                    .iter()
                    .position(|c| *c == ']')
                    .map(|p| p + i)
                    .ok_or_else(|| ParseError("unterminated array".to_owned()))?;
                let inner: String = chars[i + 1..close].iter().collect();
                steps.extend(parse_subscript(&inner, depth)?);
                i = close + 1;
            }
            '"' | '\'' => {
                let (s, next) = parse_quote(&chars, i)?;
                steps.push(Step::Literal(Value::String(s)));
                i = next;
            }
            '+' | '-' | '0'..='9' => {
                let start = i;
                i += 1;
                while i < chars.len() && (chars[i] == '.' || chars[i].is_ascii_digit()) {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let n = if let Ok(n) = word.parse::<i64>() {
                    Value::from(n)
                } else if let Some(n) = word
                    .parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                {
                    Value::Number(n)
                } else {
                    return perr(format!("cannot parse number {word}"));
                };
                steps.push(Step::Literal(n));
            }
            c if is_alphanumeric(c) => {
                let start = i;
                while i < chars.len() && !is_terminator(chars[i]) {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                steps.push(match word.as_str() {
                    "true" => Step::Literal(Value::Bool(true)),
                    "false" => Step::Literal(Value::Bool(false)),
                    _ => Step::Identifier(word),
                });
            }
            c => return perr(format!("unrecognized character in action: {}", describe(c))),
        }
    }
    Ok(steps)
}

/// `U+007E '~'`, as Go's `%#U` prints a rune.
fn describe(c: char) -> String {
    format!("U+{:04X} '{c}'", c as u32)
}

fn is_alphanumeric(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

fn is_terminator(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\r' | '\n' | '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}'
    )
}

/// A field name from `start` up to an unescaped terminator (`\.` keeps a dot in the name).
fn field_name(chars: &[char], start: usize) -> (String, usize) {
    let mut name = String::new();
    let mut i = start;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            if let Some(next) = chars.get(i + 1) {
                name.push(*next);
            }
            i += 2;
            continue;
        }
        if is_terminator(c) {
            break;
        }
        name.push(c);
        i += 1;
    }
    (name, i)
}

fn field_step(name: String) -> Step {
    if name == "*" {
        Step::Wildcard
    } else {
        Step::Field(name)
    }
}

/// A quoted string starting at `chars[start]` (its quote); returns it unescaped and the
/// position after its closing quote.
fn parse_quote(chars: &[char], start: usize) -> Result<(String, usize), ParseError> {
    let quote = chars[start];
    let mut out = String::new();
    let mut i = start + 1;
    while i < chars.len() {
        let c = chars[i];
        if c == quote {
            return Ok((out, i + 1));
        }
        if c == '\n' {
            break;
        }
        if c == '\\' {
            let Some(next) = chars.get(i + 1) else { break };
            out.push(match next {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                '0' => '\0',
                other => *other,
            });
            i += 2;
            continue;
        }
        out.push(c);
        i += 1;
    }
    perr("unterminated quoted string")
}

/// The inside of `[…]`: a union, a quoted key, `*`, an index or a slice.
fn parse_subscript(inner: &str, depth: usize) -> Result<Vec<Step>, ParseError> {
    let text = inner.trim();
    if text.contains(',') {
        let mut paths = Vec::new();
        for part in text.split(',') {
            paths.push(parse_path(&format!("[{}]", part.trim()), depth + 1)?);
        }
        return Ok(vec![Step::Union(paths)]);
    }
    if text.len() >= 2 && text.starts_with('\'') && text.ends_with('\'') {
        // `['a.b']` is the path `.a.b`, as client-go reads it; `['a\.b']` keeps the dot.
        return parse_path(&format!(".{}", &text[1..text.len() - 1]), depth + 1);
    }
    if text == "*" {
        return Ok(vec![Step::Slice(None, None, None)]);
    }
    let parts: Vec<&str> = text.split(':').collect();
    let number = |s: &str| -> Result<Option<i64>, ParseError> {
        let s = s.trim();
        if s.is_empty() {
            return Ok(None);
        }
        s.parse::<i64>()
            .map(Some)
            .map_err(|_| ParseError(format!("invalid array index {text}")))
    };
    match parts.as_slice() {
        [one] => match number(one)? {
            Some(n) => Ok(vec![Step::Index(n)]),
            None => perr(format!("invalid array index {text}")),
        },
        [a, b] => Ok(vec![Step::Slice(number(a)?, number(b)?, None)]),
        [a, b, c] => Ok(vec![Step::Slice(number(a)?, number(b)?, number(c)?)]),
        _ => perr(format!("invalid array index {text}")),
    }
}

/// `[?(…)]` from just after `(`: up to the `)` outside quotes, then `]`.
fn parse_filter(chars: &[char], start: usize, depth: usize) -> Result<(Step, usize), ParseError> {
    let mut quote: Option<char> = None;
    let mut i = start;
    let close = loop {
        let Some(&c) = chars.get(i) else {
            return perr("unterminated filter");
        };
        match (quote, c) {
            (_, '\n') => return perr("unterminated filter"),
            (Some(_), '\\') => i += 1,
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, ')') => break i,
            _ => {}
        }
        i += 1;
    };
    if chars.get(close + 1) != Some(&']') {
        return perr("unclosed array expect ]");
    }
    let body: String = chars[start..close].iter().collect();
    // The operator: the first run of `!<>=` outside quotes.
    let mut op_at = None;
    let mut quote = None;
    for (pos, c) in body.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '!' | '<' | '>' | '=') => {
                op_at = Some(pos);
                break;
            }
            _ => {}
        }
    }
    let step = match op_at {
        None => Step::Filter(parse_path(&body, depth + 1)?, None),
        Some(pos) => {
            let op_len = body[pos..]
                .chars()
                .take_while(|c| matches!(c, '!' | '<' | '>' | '='))
                .count();
            let op_text = &body[pos..pos + op_len];
            let cmp = match op_text {
                "==" => Cmp::Eq,
                "!=" => Cmp::Ne,
                "<" => Cmp::Lt,
                "<=" => Cmp::Le,
                ">" => Cmp::Gt,
                ">=" => Cmp::Ge,
                other => return perr(format!("unrecognized filter operator {other}")),
            };
            let left = parse_path(&body[..pos], depth + 1)?;
            let right = parse_path(&body[pos + op_len..], depth + 1)?;
            Step::Filter(left, Some((cmp, right)))
        }
    };
    Ok((step, close + 2))
}

type Values<'a> = Vec<Cow<'a, Value>>;

fn run_items(items: &[Item], cur: &Value, root: &Value, out: &mut String) -> Result<(), ExecError> {
    for item in items {
        match item {
            Item::Text(t) => out.push_str(t),
            Item::Path(steps) => {
                let values = eval(steps, vec![Cow::Borrowed(cur)], root)?;
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    out.push_str(&to_text(v));
                }
            }
            Item::Range(steps, body) => {
                for v in eval(steps, vec![Cow::Borrowed(cur)], root)? {
                    run_items(body, &v, root, out)?;
                }
            }
        }
    }
    Ok(())
}

/// How kubectl prints one value: strings raw, objects and arrays as compact JSON, numbers and
/// booleans as written.
pub(crate) fn to_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "<nil>".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Array(_) | Value::Object(_) => v.to_string(),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "map[string]interface {}",
    }
}

fn eval<'a>(steps: &[Step], mut cur: Values<'a>, root: &'a Value) -> Result<Values<'a>, ExecError> {
    for step in steps {
        cur = apply(step, cur, root)?;
    }
    Ok(cur)
}

/// Borrows a child of a value the list holds (owned values hand out owned copies).
fn child<'a>(
    parent: &Cow<'a, Value>,
    get: impl Fn(&Value) -> Option<&Value>,
) -> Option<Cow<'a, Value>> {
    match parent {
        Cow::Borrowed(p) => get(p).map(Cow::Borrowed),
        Cow::Owned(p) => get(p).map(|v| Cow::Owned(v.clone())),
    }
}

fn children<'a>(parent: &Cow<'a, Value>) -> Values<'a> {
    let n = match parent.as_ref() {
        Value::Array(a) => a.len(),
        Value::Object(m) => m.len(),
        _ => 0,
    };
    (0..n)
        .filter_map(|i| {
            child(parent, |v| match v {
                Value::Array(a) => a.get(i),
                Value::Object(m) => m.values().nth(i),
                _ => None,
            })
        })
        .collect()
}

fn apply<'a>(step: &Step, input: Values<'a>, root: &'a Value) -> Result<Values<'a>, ExecError> {
    let mut out = Vec::new();
    match step {
        Step::Field(name) => {
            for v in &input {
                if let Some(c) = child(v, |v| v.as_object().and_then(|m| m.get(name))) {
                    out.push(c);
                }
            }
        }
        Step::Wildcard => {
            for v in &input {
                out.extend(children(v));
            }
        }
        Step::Recursive => {
            let mut stack: Vec<Cow<'a, Value>> = input.into_iter().rev().collect();
            while let Some(v) = stack.pop() {
                let kids = children(&v);
                if !kids.is_empty() {
                    out.push(v);
                    stack.extend(kids.into_iter().rev());
                }
            }
        }
        Step::Index(n) => {
            for v in &input {
                let Some(len) = v.as_array().map(Vec::len) else {
                    if v.is_null() {
                        continue;
                    }
                    return Err(ExecError(format!("{} is not array or slice", kind_of(v))));
                };
                let at = if *n < 0 { *n + len as i64 } else { *n };
                if at < 0 || at >= len as i64 {
                    return Err(ExecError(format!(
                        "array index out of bounds: index {n}, length {len}"
                    )));
                }
                if let Some(c) = child(v, |v| v.as_array().and_then(|a| a.get(at as usize))) {
                    out.push(c);
                }
            }
        }
        Step::Slice(start, end, step) => {
            for v in &input {
                slice(v, (*start, *end, *step), &mut out)?;
            }
        }
        Step::Union(paths) => {
            for path in paths {
                out.extend(eval(path, input.clone(), root)?);
            }
        }
        Step::Filter(left, cmp) => {
            for v in &input {
                filter(v, left, cmp.as_ref(), root, &mut out)?;
            }
        }
        Step::Literal(value) => {
            out = input.iter().map(|_| Cow::Owned(value.clone())).collect();
        }
        Step::Identifier(word) => {
            return Err(ExecError(format!("unrecognized identifier {word}")));
        }
    }
    Ok(out)
}

/// `[start:end:step]` of one value: its elements in the range; `[*]` of a map, its values.
#[expect(
    clippy::ptr_arg,
    reason = "the `Cow` says whether the children are borrowed or copied"
)]
fn slice<'a>(
    v: &Cow<'a, Value>,
    (start, end, step): (Option<i64>, Option<i64>, Option<i64>),
    out: &mut Values<'a>,
) -> Result<(), ExecError> {
    let Some(len) = v.as_array().map(Vec::len) else {
        if v.is_null() {
            return Ok(());
        }
        // `[*]` on a map is its values, as `.*` is.
        if start.is_none() && end.is_none() && step.is_none() {
            out.extend(children(v));
            return Ok(());
        }
        return Err(ExecError(format!("{} is not array or slice", kind_of(v))));
    };
    let len = len as i64;
    let fix = |i: i64| if i < 0 { (i + len).max(0) } else { i.min(len) };
    let from = start.map_or(0, fix);
    let to = end.map_or(len, fix);
    let by = step.unwrap_or(1);
    if by <= 0 {
        return Err(ExecError(format!("step must be positive, got {by}")));
    }
    let mut i = from;
    while i < to {
        let at = i as usize;
        if let Some(c) = child(v, |v| v.as_array().and_then(|a| a.get(at))) {
            out.push(c);
        }
        i += by;
    }
    Ok(())
}

/// `[?(left OP right)]` of one value: its elements for which the comparison holds (or, with no
/// comparison, whose `left` exists).
#[expect(
    clippy::ptr_arg,
    reason = "the `Cow` says whether the children are borrowed or copied"
)]
fn filter<'a>(
    v: &Cow<'a, Value>,
    left: &[Step],
    cmp: Option<&(Cmp, Vec<Step>)>,
    root: &'a Value,
    out: &mut Values<'a>,
) -> Result<(), ExecError> {
    let Some(len) = v.as_array().map(Vec::len) else {
        if v.is_null() {
            return Ok(());
        }
        return Err(ExecError(format!(
            "{} is not array or slice and cannot be filtered",
            to_text(v)
        )));
    };
    for i in 0..len {
        let Some(elem) = child(v, |v| v.as_array().and_then(|a| a.get(i))) else {
            continue;
        };
        let lefts = eval(left, vec![elem.clone()], root)?;
        let keep = match cmp {
            None => !lefts.is_empty(),
            Some((op, right)) => {
                let rights = eval(right, vec![elem.clone()], root)?;
                match (lefts.as_slice(), rights.as_slice()) {
                    ([], _) | (_, []) => false,
                    ([l], [r]) => compare(*op, l, r)?,
                    _ => {
                        return Err(ExecError(
                            "can only compare one element at a time".to_owned(),
                        ));
                    }
                }
            }
        };
        if keep {
            out.push(elem);
        }
    }
    Ok(())
}

fn compare(op: Cmp, l: &Value, r: &Value) -> Result<bool, ExecError> {
    use std::cmp::Ordering;
    let ord: Option<Ordering> = match (l, r) {
        (Value::Number(a), Value::Number(b)) => match (a.as_i64(), b.as_i64()) {
            (Some(a), Some(b)) => Some(a.cmp(&b)),
            _ => a
                .as_f64()
                .zip(b.as_f64())
                .and_then(|(a, b)| a.partial_cmp(&b)),
        },
        (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
        (Value::Bool(a), Value::Bool(b)) if matches!(op, Cmp::Eq | Cmp::Ne) => Some(a.cmp(b)),
        _ => {
            return match op {
                Cmp::Eq => Ok(false),
                Cmp::Ne => Ok(true),
                _ => Err(ExecError(format!(
                    "incompatible types for comparison: {} and {}",
                    kind_of(l),
                    kind_of(r)
                ))),
            };
        }
    };
    let Some(ord) = ord else { return Ok(false) };
    Ok(match op {
        Cmp::Eq => ord == Ordering::Equal,
        Cmp::Ne => ord != Ordering::Equal,
        Cmp::Lt => ord == Ordering::Less,
        Cmp::Le => ord != Ordering::Greater,
        Cmp::Gt => ord == Ordering::Greater,
        Cmp::Ge => ord != Ordering::Less,
    })
}

/// kubectl's relaxed column path: `.a.b`, `a.b`, `{.a.b}` and `{a.b}` all mean `{.a.b}`
/// (`RelaxedJSONPathExpression` in kubectl's `get` command).
pub(crate) fn relaxed(path: &str) -> Result<String, ParseError> {
    let p = path.trim();
    let inner = p
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .unwrap_or(p);
    if inner.is_empty() || inner.contains(['{', '}']) {
        return perr(format!(
            "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{{name1.name2}}' or '{{.name1.name2}}': {path}"
        ));
    }
    let mut s = String::from("{");
    if !inner.starts_with(['.', '[', '@', '$']) {
        s.push('.');
    }
    let _ = write!(s, "{inner}}}");
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(template: &str, doc: &Value) -> Result<String, String> {
        let t = Template::parse(template).map_err(|e| format!("parse: {e}"))?;
        t.execute(doc).map_err(|e| format!("exec: {e}"))
    }

    fn ok(template: &str, doc: &Value) -> String {
        match run(template, doc) {
            Ok(s) => s,
            Err(e) => panic!("{template}: {e}"),
        }
    }

    fn types() -> Value {
        json!({
            "bools": [true, false, true, false],
            "integers": [1, 2, 3, 4],
            "floats": [1.0, 2.2, 3.3, 4.0],
            "strings": ["one", "two", "three", "four"],
            "interfaces": [true, "one", 1, 1.1],
            "maps": [{"name": "one", "value": 1}, {"name": "two", "value": 2.02},
                     {"name": "three", "value": 3.03}, {"name": "four", "value": 4.04}],
        })
    }

    /// client-go jsonpath_test.go `TestTypesInput`: slices of every type, indexes, negative
    /// indexes, sub-slices and steps.
    #[test]
    fn client_go_types_input() {
        let t = types();
        for (name, template, expect) in [
            ("boolSlice", "{ .bools }", "[true,false,true,false]"),
            ("boolSliceIndex", "{ .bools[0] }", "true"),
            ("boolSliceIndex", "{ .bools[-1] }", "false"),
            ("boolSubSlice", "{ .bools[0:2] }", "true false"),
            ("boolSubSliceFirst2", "{ .bools[:2] }", "true false"),
            ("boolSubSliceStep2", "{ .bools[:4:2] }", "true true"),
            ("integerSlice", "{ .integers }", "[1,2,3,4]"),
            ("integerSliceIndexReverse", "{ .integers[-2] }", "3"),
            ("integerSubSliceStep2", "{ .integers[:4:2] }", "1 3"),
            ("floatSliceIndexReverse", "{ .floats[-2] }", "3.3"),
            (
                "stringSlice",
                "{ .strings }",
                r#"["one","two","three","four"]"#,
            ),
            ("stringSliceIndex", "{ .strings[0] }", "one"),
            ("stringSubSliceStep2", "{ .strings[:4:2] }", "one three"),
            (
                "interfaceSubSliceFirst2",
                "{ .interfaces[0:2] }",
                "true one",
            ),
            ("interfaceSubSliceStep2", "{ .interfaces[:4:2] }", "true 1"),
            (
                "mapSliceIndex",
                "{ .maps[0] }",
                r#"{"name":"one","value":1}"#,
            ),
            (
                "mapSubSliceStepOdd",
                "{ .maps[::2] }",
                r#"{"name":"one","value":1} {"name":"three","value":3.03}"#,
            ),
            (
                "mapSubSliceStepEven",
                "{ .maps[1::2] }",
                r#"{"name":"two","value":2.02} {"name":"four","value":4.04}"#,
            ),
        ] {
            assert_eq!(ok(template, &t), expect, "{name}");
        }
    }

    fn store() -> Value {
        json!({
            "Name": "jsonpath",
            "Book": [
                {"Category": "reference", "Author": "Nigel Rees", "Title": "Sayings of the Centurey", "Price": 8.95},
                {"Category": "fiction", "Author": "Evelyn Waugh", "Title": "Sword of Honour", "Price": 12.99},
                {"Category": "fiction", "Author": "Herman Melville", "Title": "Moby Dick", "Price": 8.99},
            ],
            "Bicycle": [
                {"Color": "red", "Price": 19.95, "IsNew": true},
                {"Color": "green", "Price": 20.01, "IsNew": false},
            ],
            "Labels": {"engieer": 10, "web/html": 15, "k8s-app": 20},
            "Employees": {"jason": "manager", "dan": "clerk"},
        })
    }

    /// client-go jsonpath_test.go `TestStructInput` (store cases).
    #[test]
    fn client_go_struct_input() {
        let s = store();
        for (name, template, doc, expect) in [
            ("plain", "hello jsonpath", Value::Null, "hello jsonpath"),
            ("recursive", "{..}", json!([1, 2, 3]), "[1,2,3]"),
            ("filter", "{[?(@<5)]}", json!([2, 6, 3, 7]), "2 3"),
            ("quote", r#"{"{"}"#, Value::Null, "{"),
            ("union", "{[1,3,4]}", json!([0, 1, 2, 3, 4]), "1 3 4"),
            (
                "array",
                "{[0:2]}",
                json!(["Monday", "Tudesday"]),
                "Monday Tudesday",
            ),
            ("variable", "hello {.Name}", s.clone(), "hello jsonpath"),
            ("dict/", "{$.Labels.web/html}", s.clone(), "15"),
            ("dict/", "{$.Employees.jason}", s.clone(), "manager"),
            ("dict-", "{.Labels.k8s-app}", s.clone(), "20"),
            ("nest", "{.Bicycle[*].Color}", s.clone(), "red green"),
            (
                "allarray",
                "{.Book[*].Author}",
                s.clone(),
                "Nigel Rees Evelyn Waugh Herman Melville",
            ),
            (
                "allfields",
                r#"{range .Bicycle[*]}{ "{" }{ @.* }{ "} " }{end}"#,
                s.clone(),
                // client-go walks a Go struct's fields in declaration order; a JSON
                // document's keys come in sorted order, as a decoded map's do in kubectl.
                "{red true 19.95} {green false 20.01} ",
            ),
            // Bicycle before Book: the document's keys in sorted order (see allfields).
            (
                "recurfields",
                "{..Price}",
                s.clone(),
                "19.95 20.01 8.95 12.99 8.99",
            ),
            (
                "recurdotfields",
                "{...Price}",
                s.clone(),
                "19.95 20.01 8.95 12.99 8.99",
            ),
            (
                "allstructs",
                r#"{range .Bicycle[*]}{ @ }{ " " }{end}"#,
                s.clone(),
                r#"{"Color":"red","IsNew":true,"Price":19.95} {"Color":"green","IsNew":false,"Price":20.01} "#,
            ),
            (
                "lastarray",
                "{.Book[-1:]}",
                s.clone(),
                r#"{"Author":"Herman Melville","Category":"fiction","Price":8.99,"Title":"Moby Dick"}"#,
            ),
            (
                "recurarray",
                "{..Book[2]}",
                s.clone(),
                r#"{"Author":"Herman Melville","Category":"fiction","Price":8.99,"Title":"Moby Dick"}"#,
            ),
            (
                "bool",
                "{.Bicycle[?(@.IsNew==true)]}",
                s.clone(),
                r#"{"Color":"red","IsNew":true,"Price":19.95}"#,
            ),
            // missingKeyTests (kubectl's default --allow-missing-template-keys=true).
            ("nonexistent field", "{.hello}", s.clone(), ""),
            (
                "nonexistent field 2",
                "before-{.hello}after",
                s.clone(),
                "before-after",
            ),
        ] {
            assert_eq!(ok(template, &doc), expect, "{name}");
        }
    }

    /// client-go jsonpath_test.go `failStoreTests`: the same messages.
    #[test]
    fn client_go_fail_store_tests() {
        let s = store();
        for (name, template, expect) in [
            (
                "invalid identifier",
                "{hello}",
                "exec: unrecognized identifier hello",
            ),
            (
                "invalid array",
                "{.Labels[0]}",
                "exec: map[string]interface {} is not array or slice",
            ),
            (
                "invalid filter operator",
                "{.Book[?(@.Price<>10)]}",
                "parse: unrecognized filter operator <>",
            ),
            (
                "redundant end",
                "{range .Labels.*}{@}{end}{end}",
                "parse: not in range, nothing to end",
            ),
            (
                "superrecurfields",
                "{....Price}",
                "parse: invalid multiple recursive descent",
            ),
            ("unclosed action", "{.Name", "parse: unclosed action"),
            (
                "unclosed action, array first",
                "{.Book[",
                "parse: unterminated array",
            ),
            (
                "unterminated array",
                "{.Book[0}",
                "parse: unterminated array",
            ),
            (
                "unterminated quote",
                r#"{"abc}"#,
                "parse: unterminated quoted string",
            ),
            (
                "out of bounds",
                "{.Book[3]}",
                "exec: array index out of bounds: index 3, length 3",
            ),
            (
                "unrecognized character",
                "{.Name | x}",
                "parse: unrecognized character in action: U+007C '|'",
            ),
        ] {
            assert_eq!(run(template, &s), Err(expect.to_owned()), "{name}");
        }
    }

    fn nodes() -> Value {
        json!({
          "kind": "List",
          "items": [
            {"kind": "None",
             "metadata": {"name": "127.0.0.1", "labels": {"kubernetes.io/hostname": "127.0.0.1"}},
             "status": {"capacity": {"cpu": "4"}, "ready": true,
                        "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.1"}]}},
            {"kind": "None",
             "metadata": {"name": "127.0.0.2", "labels": {"kubernetes.io/hostname": "127.0.0.2"}},
             "status": {"capacity": {"cpu": "8"}, "ready": false,
                        "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.2"},
                                      {"type": "another", "address": "127.0.0.3"}]}}
          ],
          "users": [{"name": "myself", "user": {}},
                    {"name": "e2e", "user": {"username": "admin", "password": "secret"}}]
        })
    }

    /// client-go jsonpath_test.go `TestKubernetes` and `TestJSONInput`.
    #[test]
    fn client_go_kubernetes() {
        let n = nodes();
        for (name, template, expect) in [
            (
                "range item",
                "{range .items[*]}{.metadata.name}, {end}{.kind}",
                "127.0.0.1, 127.0.0.2, List",
            ),
            (
                "range item with quote",
                r#"{range .items[*]}{.metadata.name}{"\t"}{end}"#,
                "127.0.0.1\t127.0.0.2\t",
            ),
            (
                "range addresss",
                "{.items[*].status.addresses[*].address}",
                "127.0.0.1 127.0.0.2 127.0.0.3",
            ),
            (
                "double range",
                "{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}",
                "127.0.0.1, 127.0.0.2, 127.0.0.3, ",
            ),
            (
                "item name",
                "{.items[*].metadata.name}",
                "127.0.0.1 127.0.0.2",
            ),
            (
                "union nodes capacity",
                "{.items[*]['metadata.name', 'status.capacity']}",
                r#"127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}"#,
            ),
            (
                "range nodes capacity",
                "{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}",
                r#"[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] "#,
            ),
            (
                "user password",
                r#"{.users[?(@.name=="e2e")].user.password}"#,
                "secret",
            ),
            (
                "hostname",
                r"{.items[0].metadata.labels.kubernetes\.io/hostname}",
                "127.0.0.1",
            ),
            (
                "hostname filter",
                r#"{.items[?(@.metadata.labels.kubernetes\.io/hostname=="127.0.0.1")].kind}"#,
                "None",
            ),
            (
                "bool item",
                "{.items[?(@..ready==true)].metadata.name}",
                "127.0.0.1",
            ),
            (
                "recursive name",
                "{..name}",
                "127.0.0.1 127.0.0.2 myself e2e",
            ),
            ("newline literal", r#"{.kind}{"\n"}"#, "List\n"),
        ] {
            assert_eq!(ok(template, &n), expect, "{name}");
        }
        let points = json!([
            {"id": "i1", "x": 4, "y": -5}, {"id": "i2", "x": -2, "y": -5, "z": 1},
            {"id": "i3", "x": 8, "y": 3}, {"id": "i4", "x": -6, "y": -1},
            {"id": "i5", "x": 0, "y": 2, "z": 1}, {"id": "i6", "x": 1, "y": 4}
        ]);
        assert_eq!(ok("{[?(@.z)].id}", &points), "i2 i5", "exists filter");
        assert_eq!(ok("{[0]['id']}", &points), "i1", "bracket key");
        assert_eq!(ok("{[?(@.x>=1)].id}", &points), "i1 i3 i6", "number filter");
    }

    /// client-go jsonpath_test.go `TestEmptyRange`.
    #[test]
    fn client_go_empty_range() {
        let empty = json!({"items": []});
        assert_eq!(ok("{range .items[*]}{.metadata.name}{end}", &empty), "");
        assert_eq!(
            ok(
                r#"{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}"#,
                &empty
            ),
            ""
        );
    }

    #[test]
    fn a_filter_skips_elements_without_the_key() {
        let doc = json!({"units": [{"name": "a", "outcome": "Scheduled"}, {"name": "b"}]});
        assert_eq!(ok(r#"{.units[?(@.outcome=="Scheduled")].name}"#, &doc), "a");
        assert_eq!(ok(r#"{.units[?(@.outcome!="Scheduled")].name}"#, &doc), "");
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!("{{{}1{}}}", "[".repeat(200), "]".repeat(200));
        assert!(Template::parse(&deep).is_err());
        let ranges = "{range .a}".repeat(100);
        assert!(Template::parse(&ranges).is_err());
    }

    #[test]
    fn relaxed_paths_as_kubectl_reads_them() {
        assert_eq!(relaxed(".a.b").as_deref(), Ok("{.a.b}"));
        assert_eq!(relaxed("a.b").as_deref(), Ok("{.a.b}"));
        assert_eq!(relaxed("{.a.b}").as_deref(), Ok("{.a.b}"));
        assert_eq!(relaxed("{a.b}").as_deref(), Ok("{.a.b}"));
        assert!(relaxed("").is_err());
        assert!(relaxed("{.a}{.b}").is_err());
    }
}
