//! Expanding chains: a string of room letters grown by weighted rewrite rules.

use rand::Rng;

use super::ChainRule;
use crate::seed;

/// Longest chain a node may expand to.
pub const MAX_CHAIN_LENGTH: u32 = 64;

/// How many fresh tries an evolution gets before it reports the bounds as unmet.
const ATTEMPTS: usize = 16;

/// How many times mandatory rules may fire after the length is reached.
const MANDATORY_BUDGET: usize = 64;

/// Grows a chain string from `initial` with `rules` until its length, drawn uniformly from
/// `min..=max`, is reached.
///
/// Each step picks, by weight, a rule whose `form` occurs in the string and whose replacement
/// keeps the string within `max`, and replaces one random occurrence of the form with the
/// target. Growth stops early if a step leaves the length unchanged. Then mandatory rules are
/// applied until none applies. If the result lies outside `min..=max`, the evolution starts
/// again, up to a fixed budget of tries.
///
/// # Returns
/// The chain, one letter per room, or a message saying which bound could not be met.
///
/// # Complexity
/// `O(A · M · R · L)` for `A` tries, `M` steps (at most the length), `R` rules and strings of
/// length `L` (at most 64).
///
/// # Examples
/// ```
/// use levelplan::graph::flow::{evolve_chain, ChainRule};
/// use levelplan::seed::stream;
///
/// let rules = vec![ChainRule { form: "n".into(), target: "nc".into(), weight: 1.0, mandatory: false }];
/// let chain = evolve_chain(&mut stream(1, "doc"), "n", 3, 6, &rules).unwrap();
/// assert!((3..=6).contains(&chain.len()));
/// assert!(chain.starts_with('n'));
/// ```
pub fn evolve_chain<R: Rng + ?Sized>(
    rng: &mut R,
    initial: &str,
    min: u32,
    max: u32,
    rules: &[ChainRule],
) -> Result<String, String> {
    let target_len = seed::range_inclusive(rng, min, max) as usize;
    let (min, max) = (min as usize, max as usize);
    let mut last = String::new();
    for _ in 0..ATTEMPTS {
        let mut s = initial.to_string();
        while s.len() < target_len {
            let before = s.len();
            if !apply_one(rng, &mut s, rules.iter(), max) {
                break;
            }
            if s.len() == before {
                break;
            }
        }
        for _ in 0..MANDATORY_BUDGET {
            if !apply_one(rng, &mut s, rules.iter().filter(|r| r.mandatory), max) {
                break;
            }
        }
        if (min..=max).contains(&s.len()) {
            return Ok(s);
        }
        last = s;
    }
    Err(format!(
        "after {ATTEMPTS} tries the chain is \"{last}\" ({} rooms), outside min {min} .. max {max}; \
         add a rule that grows the chain from letters it contains, or widen the bounds",
        last.len()
    ))
}

/// Applies one weighted-random applicable rule at a random occurrence; `false` if none applies.
fn apply_one<'a, R: Rng + ?Sized>(
    rng: &mut R,
    s: &mut String,
    rules: impl Iterator<Item = &'a ChainRule>,
    max: usize,
) -> bool {
    let applicable: Vec<&ChainRule> = rules
        .filter(|r| {
            !r.form.is_empty()
                && s.contains(r.form.as_str())
                && s.len() - r.form.len() + r.target.len() <= max
        })
        .collect();
    let weights: Vec<f64> = applicable.iter().map(|r| r.weight).collect();
    let Some(pick) = seed::weighted_index(rng, &weights) else {
        return false;
    };
    let rule = applicable[pick];
    let spots: Vec<usize> = (0..=s.len() - rule.form.len())
        .filter(|&i| s[i..].starts_with(rule.form.as_str()))
        .collect();
    let at = spots[seed::index(rng, spots.len())];
    s.replace_range(at..at + rule.form.len(), &rule.target);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::stream;

    fn rule(form: &str, target: &str, mandatory: bool) -> ChainRule {
        ChainRule {
            form: form.into(),
            target: target.into(),
            weight: 1.0,
            mandatory,
        }
    }

    #[test]
    fn chains_stay_within_bounds() {
        let rules = [rule("n", "nn", false), rule("nn", "ncn", false)];
        for s in 0..200 {
            let c = evolve_chain(&mut stream(s, "t"), "n", 2, 9, &rules).unwrap();
            assert!((2..=9).contains(&c.len()), "{c}");
        }
    }

    #[test]
    fn mandatory_rules_apply_after_growth() {
        let rules = [rule("n", "nn", false), rule("nn", "nr", true)];
        let c = evolve_chain(&mut stream(2, "t"), "n", 4, 4, &rules).unwrap();
        assert!(!c.contains("nn"), "{c}");
    }

    #[test]
    fn unreachable_length_is_an_error() {
        let rules = [rule("n", "c", false)];
        let err = evolve_chain(&mut stream(2, "t"), "n", 3, 5, &rules).unwrap_err();
        assert!(err.contains("outside min 3"), "{err}");
    }
}
