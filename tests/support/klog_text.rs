//! A reader for klog's text format, written from klog's description of it (`klog.go` header,
//! `internal/serialize/keyvalues.go` `writeStringValue`) independently of edgesched's writer,
//! so tests can check that what the scheduler prints is what a klog log shipper reads.
//! Shared by the log tests and the `log_text` fuzz target.

/// One parsed entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// `I`, `W`, `E` or `F`.
    pub severity: char,
    /// `file:line` of the header.
    pub caller: String,
    pub msg: String,
    /// Keys with their values: quoted strings unquoted, blocks joined, bare values as written.
    pub kv: Vec<(String, String)>,
}

/// Parse one entry from the start of `input`; returns it and the rest.
pub fn parse_entry(input: &str) -> Result<(Entry, &str), String> {
    let mut chars = input.char_indices();
    let severity = match chars.next() {
        Some((_, c @ ('I' | 'W' | 'E' | 'F'))) => c,
        other => return Err(format!("bad severity {other:?}")),
    };
    // MMDD hh:mm:ss.uuuuuu
    let head = input.get(1..21).ok_or("short header")?;
    let shape_ok = head.char_indices().all(|(i, c)| match i {
        4 => c == ' ',
        7 | 10 => c == ':',
        13 => c == '.',
        _ => c.is_ascii_digit(),
    });
    if !shape_ok {
        return Err(format!("bad timestamp {head:?}"));
    }
    let rest = &input[21..];
    let rest = rest.trim_start_matches(' ');
    let pid_end = rest.find(' ').ok_or("no pid")?;
    if !rest[..pid_end].bytes().all(|b| b.is_ascii_digit()) {
        return Err("bad pid".into());
    }
    let rest = &rest[pid_end + 1..];
    let close = rest.find("] ").ok_or("no caller")?;
    let caller = rest[..close].to_string();
    let rest = &rest[close + 2..];
    let (msg, mut rest) = quoted(rest)?;
    let mut kv = Vec::new();
    loop {
        if let Some(r) = rest.strip_prefix('\n') {
            return Ok((Entry { severity, caller, msg, kv }, r));
        }
        rest = rest.strip_prefix(' ').ok_or_else(|| format!("expected a pair at {:?}", head_of(rest)))?;
        let eq = rest.find('=').ok_or("pair without '='")?;
        let key = rest[..eq].to_string();
        rest = &rest[eq + 1..];
        let (value, r) = if rest.starts_with('"') {
            quoted(rest)?
        } else if let Some(r) = rest.strip_prefix("<\n") {
            block(r)?
        } else if rest.starts_with('[') {
            // A Go slice (`%+v`): up to the closing bracket.
            let end = rest.find(']').map(|i| i + 1).ok_or("unterminated list")?;
            (rest[..end].to_string(), &rest[end..])
        } else {
            let end = rest.find([' ', '\n']).unwrap_or(rest.len());
            (rest[..end].to_string(), &rest[end..])
        };
        kv.push((key, value));
        rest = r;
    }
}

fn head_of(s: &str) -> &str {
    s.get(..s.len().min(40)).unwrap_or(s)
}

/// The indented block: lines starting with a tab, ended by " >".
fn block(mut rest: &str) -> Result<(String, &str), String> {
    let mut lines = Vec::new();
    loop {
        if let Some(r) = rest.strip_prefix(" >") {
            return Ok((lines.join("\n"), r));
        }
        let r = rest.strip_prefix('\t').ok_or("block line without a tab")?;
        let end = r.find('\n').ok_or("unterminated block")?;
        lines.push(&r[..end]);
        rest = &r[end + 1..];
    }
}

/// A Go `strconv.Quote`d string at the start of `s` (Go's `strconv.Unquote` rules).
pub fn quoted(s: &str) -> Result<(String, &str), String> {
    let mut it = s.char_indices();
    if !matches!(it.next(), Some((_, '"'))) {
        return Err(format!("expected a quoted string at {:?}", head_of(s)));
    }
    let mut out = String::new();
    while let Some((i, c)) = it.next() {
        match c {
            '"' => return Ok((out, &s[i + 1..])),
            '\n' => return Err("line break inside a quoted string".into()),
            '\\' => {
                let (_, e) = it.next().ok_or("dangling backslash")?;
                let hex = |it: &mut std::str::CharIndices, n: usize| -> Result<u32, String> {
                    let digits: String = (0..n).filter_map(|_| it.next().map(|(_, c)| c)).collect();
                    if digits.len() != n {
                        return Err("short escape".into());
                    }
                    u32::from_str_radix(&digits, 16).map_err(|e| e.to_string())
                };
                let ch = match e {
                    'a' => '\x07',
                    'b' => '\x08',
                    'f' => '\x0c',
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    'v' => '\x0b',
                    '\\' => '\\',
                    '"' => '"',
                    'x' => char::from_u32(hex(&mut it, 2)?).ok_or("bad \\x")?,
                    'u' => char::from_u32(hex(&mut it, 4)?).ok_or("bad \\u")?,
                    'U' => char::from_u32(hex(&mut it, 8)?).ok_or("bad \\U")?,
                    other => return Err(format!("unknown escape \\{other}")),
                };
                out.push(ch);
            }
            c => out.push(c),
        }
    }
    Err("unterminated quoted string".into())
}

/// What a value reads back as: klog's block cannot show a final line break of a multi-line
/// value (its own comment says so), so that one is dropped.
pub fn expected_readback(value: &str) -> &str {
    if value.contains('\n') {
        value.strip_suffix('\n').unwrap_or(value)
    } else {
        value
    }
}
