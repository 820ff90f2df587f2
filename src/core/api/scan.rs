//! A strict JSON cursor for the hand-written pod decoder ([`super::pod_wire`]) and the list-page
//! scanner built on it.
//!
//! The cursor accepts a subset of what `serde_json` accepts, never more: strings without
//! escapes or control characters are read in place, values nobody reads are skipped with
//! `serde_json`'s own grammar (`de.rs` `ignore_value`: one leading zero, digits after `.` and
//! `e`, escapes `\" \\ \/ \b \f \n \r \t \uXXXX`, no control characters, no trailing commas),
//! and nesting deeper than [`MAX_DEPTH`] is refused. Whatever it refuses is a [`Miss`]: the
//! caller hands the text to the general decoder, which decides (and words the error) as before.
//!
//! Speed: a list page of 50,000 pods is mostly strings, read here eight bytes at a time
//! ([`str_end`]); the text the API server sends has no whitespace, so looking for it is one
//! compare ([`Cursor::peek`]); skipped values are walked by one loop, not by a call per value.

/// The text is not in the shape the fast path reads; decode it the general way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Miss;

/// Deepest nesting the cursor follows (below `serde_json`'s recursion limit of 128, so that a
/// value decoded by parts never gets deeper than the general decoder would have let it).
pub const MAX_DEPTH: u32 = 100;

/// The index of `key` among `names`. Lengths and first bytes are compared before the rest,
/// eight bytes at a time: matching every key with `match` called the C library's byte-wise
/// `memcmp` for each candidate, the decoder's largest cost.
#[inline]
pub fn field_index(key: &str, names: &[&str]) -> Option<usize> {
    let k = key.as_bytes();
    let first = *k.first()?;
    names.iter().position(|n| n.len() == k.len() && n.as_bytes()[0] == first && same(n.as_bytes(), k))
}

/// Equal bytes of equal-length slices. Indexed by hand (`first_chunk`, a byte loop): at
/// `opt-level = "z"` the `chunks_exact` and `zip` iterators were calls per step.
fn same(mut a: &[u8], mut b: &[u8]) -> bool {
    while let (Some((x, a_rest)), Some((y, b_rest))) = (a.split_first_chunk::<8>(), b.split_first_chunk::<8>()) {
        if u64::from_le_bytes(*x) != u64::from_le_bytes(*y) {
            return false;
        }
        (a, b) = (a_rest, b_rest);
    }
    let mut i = 0;
    while let (Some(x), Some(y)) = (a.get(i), b.get(i)) {
        if x != y {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `b` ends a run of plain string bytes: a quote, a backslash or a control character
/// (which JSON refuses in strings). Every one is ASCII, so a string is never cut inside a
/// multi-byte UTF-8 character.
fn ends_run(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// The offset of the first byte at or after `from` that [`ends_run`], or the text's length.
///
/// Eight bytes at a time: a byte of a word is flagged when it equals a quote or a backslash (the
/// word XOR that byte repeated has a zero byte there) or is below 0x20. The classic zero-byte
/// and less-than tests (`(x - 0x01..) & !x & 0x80..`) can flag a byte above a flagged one (a
/// borrow crosses into it), never one below, so the lowest flag is exact. A byte-at-a-time loop
/// made string scanning most of a list page's decoding time. Inlined into its two callers:
/// a call per string cost about 5% of skipping a pod.
#[inline(always)]
fn str_end(bytes: &[u8], from: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES * 0x80;
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGH;
    let mut at = from;
    while let Some(word) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        let w = u64::from_le_bytes(*word);
        let flags = below(w ^ (ONES * u64::from(b'"')), 1) | below(w ^ (ONES * u64::from(b'\\')), 1) | below(w, 0x20);
        if flags != 0 {
            return at + (flags.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while bytes.get(at).is_some_and(|&b| !ends_run(b)) {
        at += 1;
    }
    at
}

/// A position to come back to.
#[derive(Debug, Clone, Copy)]
pub struct Mark {
    pub pos: usize,
    depth: u32,
}

/// A position in JSON text.
pub struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    depth: u32,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    pub fn new(text: &'a str) -> Cursor<'a> {
        Cursor { text, pos: 0, depth: 0 }
    }

    #[inline]
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The offset of the next value (after whitespace).
    pub fn start(&mut self) -> usize {
        self.ws();
        self.pos
    }

    /// Where the next value starts, to come back to ([`Cursor::rewind`]).
    pub fn mark(&mut self) -> Mark {
        Mark { pos: self.start(), depth: self.depth }
    }

    /// Go back to `mark` (nesting included: a [`Miss`] may leave objects open).
    pub fn rewind(&mut self, mark: Mark) {
        self.pos = mark.pos;
        self.depth = mark.depth;
    }

    /// The text from `from` to here (the cursor only ever stops on ASCII, so this is a boundary).
    pub fn since(&self, from: usize) -> &'a str {
        self.text.get(from..self.pos).unwrap_or_default()
    }

    #[inline]
    fn ws(&mut self) {
        self.peek();
    }

    /// The next byte after whitespace, not consumed. Every whitespace byte is at most `b' '`, so
    /// on text without whitespace (the API server's) this is one compare; the loop is out of line
    /// (`always`: at `opt-level = "z"` the call cost more than these few instructions).
    #[inline(always)]
    pub fn peek(&mut self) -> Option<u8> {
        match self.bytes().get(self.pos) {
            Some(&b) if b > b' ' => Some(b),
            _ => self.skip_ws(),
        }
    }

    /// [`Cursor::peek`] when whitespace may come next.
    #[cold]
    #[inline(never)]
    fn skip_ws(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes().get(self.pos) {
            self.pos += 1;
        }
        self.bytes().get(self.pos).copied()
    }

    #[inline(always)]
    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    #[inline(always)]
    fn expect(&mut self, b: u8) -> Result<(), Miss> {
        if self.eat(b) {
            Ok(())
        } else {
            Err(Miss)
        }
    }

    /// Only whitespace is left.
    pub fn at_end(&mut self) -> bool {
        self.ws();
        self.pos == self.text.len()
    }

    /// Consume a `null` if one comes next.
    #[inline]
    pub fn null(&mut self) -> Result<bool, Miss> {
        if self.peek() != Some(b'n') {
            return Ok(false);
        }
        self.literal(b"null")?;
        Ok(true)
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), Miss> {
        if self.bytes().get(self.pos..self.pos + word.len()) == Some(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(Miss)
        }
    }

    /// A string without escapes, borrowed from the text.
    pub fn plain_str(&mut self) -> Result<&'a str, Miss> {
        self.expect(b'"')?;
        let start = self.pos;
        self.pos = str_end(self.bytes(), start);
        if !matches!(self.bytes().get(self.pos), Some(b'"')) {
            return Err(Miss);
        }
        let s = self.text.get(start..self.pos).ok_or(Miss)?;
        self.pos += 1;
        Ok(s)
    }

    /// `true` or `false`.
    pub fn boolean(&mut self) -> Result<bool, Miss> {
        match self.peek() {
            Some(b't') => self.literal(b"true").map(|_| true),
            Some(b'f') => self.literal(b"false").map(|_| false),
            _ => Err(Miss),
        }
    }

    /// An integer written plainly (no fraction, exponent or `-0`, which `serde_json` reads as a
    /// float) that fits an `i32`.
    pub fn int32(&mut self) -> Result<i32, Miss> {
        i32::try_from(self.int64()?).map_err(|_| Miss)
    }

    /// [`Cursor::int32`] for an `i64`.
    /// Digits are summed as they are read (negated: `i64::MIN` has no positive counterpart),
    /// not scanned, checked again and parsed.
    pub fn int64(&mut self) -> Result<i64, Miss> {
        self.ws();
        let negative = self.skip_if(|b| b == b'-');
        let start = self.pos;
        let mut value = 0i64;
        while let Some(d) = self.bytes().get(self.pos).and_then(|b| b.checked_sub(b'0')).filter(|&d| d < 10) {
            value = value.checked_mul(10).and_then(|v| v.checked_sub(i64::from(d))).ok_or(Miss)?;
            self.pos += 1;
        }
        let digits = self.pos - start;
        let leading_zero = matches!(self.bytes().get(start), Some(b'0'));
        if digits == 0
            || (leading_zero && (digits > 1 || negative))
            || matches!(self.bytes().get(self.pos), Some(b'.' | b'e' | b'E'))
        {
            return Err(Miss);
        }
        if negative {
            Ok(value)
        } else {
            value.checked_neg().ok_or(Miss)
        }
    }

    /// An object: `field` is called with each key (the cursor before its value) and must
    /// consume the value.
    pub fn object(&mut self, mut field: impl FnMut(&mut Self, &'a str) -> Result<(), Miss>) -> Result<(), Miss> {
        self.object_dyn(&mut field)
    }

    /// [`Cursor::object`], one copy of the loop for every caller (`dyn`: the decoder stays small).
    fn object_dyn(&mut self, field: &mut dyn FnMut(&mut Self, &'a str) -> Result<(), Miss>) -> Result<(), Miss> {
        self.expect(b'{')?;
        self.enter()?;
        if !self.eat(b'}') {
            loop {
                let key = self.plain_str()?;
                self.expect(b':')?;
                field(self, key)?;
                if self.eat(b',') {
                    continue;
                }
                self.expect(b'}')?;
                break;
            }
        }
        self.depth -= 1;
        Ok(())
    }

    /// An array: `element` is called before each element and must consume it.
    pub fn array(&mut self, mut element: impl FnMut(&mut Self) -> Result<(), Miss>) -> Result<(), Miss> {
        self.array_dyn(&mut element)
    }

    /// [`Cursor::array`], one copy of the loop for every caller.
    fn array_dyn(&mut self, element: &mut dyn FnMut(&mut Self) -> Result<(), Miss>) -> Result<(), Miss> {
        self.expect(b'[')?;
        self.enter()?;
        if !self.eat(b']') {
            loop {
                element(self)?;
                if self.eat(b',') {
                    continue;
                }
                self.expect(b']')?;
                break;
            }
        }
        self.depth -= 1;
        Ok(())
    }

    fn enter(&mut self) -> Result<(), Miss> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Miss);
        }
        Ok(())
    }

    /// Skip one value, checking it as `serde_json` checks a value it ignores.
    ///
    /// One loop for the whole value (a call per nested value cost more than the checks): it
    /// reads a value, then closes the containers that value completes. Bit `i` of `objects`
    /// says whether the container `i` levels out from the innermost open one is an object
    /// (`u128`: more than [`MAX_DEPTH`] bits).
    pub fn skip_value(&mut self) -> Result<(), Miss> {
        let base = self.depth;
        let mut objects = 0u128;
        'value: loop {
            match self.peek().ok_or(Miss)? {
                open @ (b'{' | b'[') => {
                    self.pos += 1;
                    self.enter()?;
                    let object = open == b'{';
                    objects = objects << 1 | u128::from(object);
                    if !self.eat(if object { b'}' } else { b']' }) {
                        if object {
                            self.skip_key()?;
                        }
                        continue 'value;
                    }
                    self.depth -= 1;
                    objects >>= 1;
                }
                b'"' => {
                    self.pos += 1;
                    self.skip_str_rest()?;
                }
                b'n' => self.literal(b"null")?,
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'-' | b'0'..=b'9' => self.number()?,
                _ => return Err(Miss),
            }
            while self.depth > base {
                let object = objects & 1 == 1;
                if self.eat(b',') {
                    if object {
                        self.skip_key()?;
                    }
                    continue 'value;
                }
                self.expect(if object { b'}' } else { b']' })?;
                self.depth -= 1;
                objects >>= 1;
            }
            return Ok(());
        }
    }

    /// An object key (escapes allowed and checked) and its colon.
    #[inline(always)]
    fn skip_key(&mut self) -> Result<(), Miss> {
        self.expect(b'"')?;
        self.skip_str_rest()?;
        self.expect(b':')
    }

    /// The raw text of the next value (checked as [`Cursor::skip_value`] checks it).
    pub fn raw_value(&mut self) -> Result<&'a str, Miss> {
        let start = self.start();
        self.skip_value()?;
        Ok(self.since(start))
    }

    /// The rest of a string after its opening quote, escapes checked.
    fn skip_str_rest(&mut self) -> Result<(), Miss> {
        let bytes = self.bytes();
        loop {
            self.pos = str_end(bytes, self.pos);
            let b = *bytes.get(self.pos).ok_or(Miss)?;
            self.pos += 1;
            match b {
                b'"' => return Ok(()),
                b'\\' => {
                    let e = *bytes.get(self.pos).ok_or(Miss)?;
                    self.pos += 1;
                    match e {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            let hex = bytes.get(self.pos..self.pos + 4).ok_or(Miss)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return Err(Miss);
                            }
                            self.pos += 4;
                        }
                        _ => return Err(Miss),
                    }
                }
                _ => return Err(Miss),
            }
        }
    }

    /// A number in JSON's grammar (`-`, one `0` or digits without a leading zero, optional
    /// fraction and exponent, each with at least one digit).
    fn number(&mut self) -> Result<(), Miss> {
        self.skip_if(|b| b == b'-');
        let int = self.pos;
        let n = self.digits();
        if n == 0 || (n > 1 && self.bytes().get(int) == Some(&b'0')) {
            return Err(Miss);
        }
        if self.skip_if(|b| b == b'.') && self.digits() == 0 {
            return Err(Miss);
        }
        if self.skip_if(|b| b == b'e' || b == b'E') {
            self.skip_if(|b| b == b'+' || b == b'-');
            if self.digits() == 0 {
                return Err(Miss);
            }
        }
        Ok(())
    }

    /// Consume the next byte if `wanted` (no whitespace first).
    #[inline]
    fn skip_if(&mut self, wanted: impl Fn(u8) -> bool) -> bool {
        let hit = self.bytes().get(self.pos).is_some_and(|&b| wanted(b));
        self.pos += usize::from(hit);
        hit
    }

    /// Consume ASCII digits; how many.
    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.skip_if(|b| b.is_ascii_digit()) {}
        self.pos - start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cursor skips exactly what `serde_json` ignores, and refuses what it refuses.
    #[test]
    fn skipping_follows_serde_json() {
        let cases = [
            "null",
            "true",
            "false",
            "0",
            "-1",
            "1.5",
            "1e3",
            "1E+3",
            "-0.0e-1",
            "\"\"",
            "\"a\\u00e9\\n\\\"\"",
            "[]",
            "{}",
            "[1,[2,{\"a\":null}]]",
            "{\"a\":{\"b\":[]},\"c\":\"d\"}",
            " [ 1 , 2 ] ",
            "01",
            "1.",
            ".5",
            "1e",
            "-",
            "+1",
            "[1,]",
            "{\"a\":1,}",
            "{\"a\"}",
            "{\"\\u0061\":1}",
            "{a:1}",
            "[1 2]",
            "nul",
            "tru",
            "\"\\x\"",
            "\"\\u12g4\"",
            "\"a\u{1}b\"",
            "\"open",
            "[",
            "{\"a\":",
            "\"\\ud800\"",
            "--1",
            "-01",
            "1.5.2",
            "[]]",
            "é",
        ];
        for case in cases {
            let serde_ok = serde_json::from_str::<serde::de::IgnoredAny>(case).is_ok();
            let mut c = Cursor::new(case);
            let ours = c.skip_value().is_ok() && c.at_end();
            assert_eq!(ours, serde_ok, "{case}");
        }
    }

    /// The cursor skips `text` to its end exactly when `serde_json` ignores it; whether it does.
    fn skips_as_serde(text: &str) -> bool {
        let serde_ok = serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
        let mut c = Cursor::new(text);
        assert_eq!(c.skip_value().is_ok() && c.at_end(), serde_ok, "{text:?}");
        serde_ok
    }

    /// Strings of every length up to 40 with one special piece at every offset (so that it
    /// falls at every place in an eight-byte word, and in the byte-wise tail at the text's end):
    /// the cursor skips and reads them exactly as `serde_json` does.
    #[test]
    fn strings_follow_serde_json() {
        let pieces = [
            "",
            "\"",
            "\\",
            "\\\\",
            "\\\"",
            "\\/",
            "\\n",
            "\\t",
            "\\b",
            "\\f",
            "\\r",
            "\\u00e9",
            "\\uD83D\\uDE00",
            "\\u12g4",
            "\\u12",
            "\\x",
            "\\ud800",
            "\u{0}",
            "\u{1}",
            "\n",
            "\t",
            "\u{1f}",
            " ",
            "\u{7f}",
            "é",
            "€",
            "😀",
            "\u{80}",
            "\u{10ffff}",
            "!",
            "#",
            "[",
            "]",
            "\\\\\\u0041\\\"",
            "é\\n€",
        ];
        for len in 0..40 {
            for at in 0..=len {
                for piece in pieces {
                    let body = format!("{}{piece}{}", "a".repeat(at), "b".repeat(len - at));
                    for text in [format!("\"{body}\""), format!("\"{body}")] {
                        skips_as_serde(&text);
                        let serde_str = serde_json::from_str::<String>(&text).ok().filter(|_| !body.contains('\\'));
                        let mut c = Cursor::new(&text);
                        assert_eq!(c.plain_str().ok().filter(|_| c.at_end()), serde_str.as_deref(), "plain {text:?}");
                        // Followed by more text: the words run past the string's end.
                        let longer = format!("{text}:[\"0123456789\"]");
                        let mut c = Cursor::new(&longer);
                        let plain = c.plain_str().ok().filter(|_| c.eat(b':') && c.skip_value().is_ok() && c.at_end());
                        assert_eq!(plain, serde_str.as_deref(), "plain {longer:?}");
                        skips_as_serde(&format!("{{{text}:0}}"));
                    }
                }
            }
        }
    }

    /// Whitespace, numbers and nesting around the one-loop skip, against `serde_json`.
    #[test]
    fn skipping_structure_follows_serde_json() {
        let cases = [
            "\t{\n\"a\"\r:\r[ ]\n}\n",
            "{ }",
            "[ ]",
            " [ { } , [ ] ] ",
            "\u{1}1",
            "1\u{b}",
            "{\"a\":1 \u{c}}",
            "00",
            "0.0e",
            "-0",
            "1e+",
            "1e-5",
            "12.34E56",
            "0e0",
            "-1.",
            "2.e3",
            "-a",
            "1e+-1",
            "[{\"a\":[{}]}]",
            "[{\"a\":[{},]}]",
            "{\"a\":[1,{\"b\":{\"c\":[]}}],\"d\":{}}",
            "{\"a\":[1,{\"b\":{\"c\":[]}}],\"d\":{},}",
            "[{]",
            "[{}}",
            "{\"a\":1]",
            "{\"a\":[}]",
            "{,}",
            "[,]",
            "{\"a\" 1}",
            "{\"a\":}",
            "{1:1}",
            "[1,,2]",
            "[[[[[]]]]]",
            "[[[[[]]]]",
            "{\"a\":[[{\"b\":[]}]]}",
        ];
        for case in cases {
            let serde_ok = skips_as_serde(case);
            // Skipped as a field of an object being read: the depth comes back.
            let outer = format!("{{\"x\":{case},\"y\":1}}");
            let mut c = Cursor::new(&outer);
            let mut seen = Vec::new();
            let ok = c
                .object(|c, key| {
                    seen.push(key);
                    c.skip_value()
                })
                .is_ok();
            assert_eq!(ok && c.at_end() && c.depth == 0 && seen == ["x", "y"], serde_ok, "{outer:?}");
        }
    }

    /// `int64` and `int32` read exactly the plain integers the scan-then-parse reading took.
    #[test]
    fn integers_as_parsed() {
        let parsed = |t: &str| {
            let mut c = Cursor::new(t);
            let start = c.start();
            c.number().ok()?;
            let n = c.since(start);
            let plain = !n.starts_with("-0") && !n.contains(['.', 'e', 'E']);
            Some((n.parse::<i64>().ok().filter(|_| plain)?, c.pos))
        };
        let mut cases: Vec<String> = [
            "0",
            "-0",
            "00",
            "-00",
            "1",
            "-1",
            "12",
            "0.5",
            "1e3",
            "1E3",
            "-",
            "",
            "-a",
            "+1",
            "1x",
            "1.",
            "01",
            " 7",
            "-0.0",
            "10,",
            "99999999999999999999",
            "-99999999999999999999",
            "2147483647",
            "2147483648",
            "-2147483648",
            "-2147483649",
            "300}",
        ]
        .map(String::from)
        .to_vec();
        for n in [i64::MAX, i64::MIN, i64::from(i32::MAX), i64::from(i32::MIN)] {
            for d in -2..=2i64 {
                cases.extend([n.wrapping_add(d).to_string(), format!("{}0", n.wrapping_add(d))]);
            }
        }
        cases.extend([
            format!("{}", u64::MAX),
            format!("-{}", u64::MAX),
            "9223372036854775808".into(),
            "-9223372036854775809".into(),
        ]);
        for case in &cases {
            let mut c = Cursor::new(case);
            assert_eq!(c.int64().ok().map(|v| (v, c.pos)), parsed(case), "{case:?}");
            let mut c = Cursor::new(case);
            let want = parsed(case).and_then(|(v, pos)| Some((i32::try_from(v).ok()?, pos)));
            assert_eq!(c.int32().ok().map(|v| (v, c.pos)), want, "{case:?}");
        }
    }

    #[test]
    fn field_names_match_exactly() {
        let names = ["name", "namespace", "nodeName", "resourceVersionsAreLong", "a"];
        for (i, n) in names.iter().enumerate() {
            assert_eq!(field_index(n, &names), Some(i));
        }
        for miss in ["", "nam", "names", "Name", "resourceVersionsAreLonG", "b", "namespacE"] {
            assert_eq!(field_index(miss, &names), None, "{miss}");
        }
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH as usize + 1), "]".repeat(MAX_DEPTH as usize + 1));
        assert_eq!(Cursor::new(&deep).skip_value(), Err(Miss));
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH as usize), "]".repeat(MAX_DEPTH as usize));
        assert_eq!(Cursor::new(&ok).skip_value(), Ok(()));
    }

    #[test]
    fn plain_values() {
        let mut c = Cursor::new(r#" "abc" , -12 true"#);
        assert_eq!(c.plain_str(), Ok("abc"));
        assert!(c.eat(b','));
        assert_eq!(c.int32(), Ok(-12));
        assert_eq!(c.boolean(), Ok(true));
        assert!(c.at_end());
        for miss in [r#""a\nb""#, "1.0", "-0", "1e2", "2147483648", "\"a\u{1}\""] {
            let mut c = Cursor::new(miss);
            assert!(c.plain_str().is_err() || !c.at_end(), "{miss}");
            let mut c = Cursor::new(miss);
            assert!(c.int32().is_err(), "{miss}");
        }
    }
}
