use elicit::Elicit;

// A JavaScript client reads integers beyond ±(2^53 - 1) rounded: bounds and defaults
// written beyond them are refused on the literal, whatever the field's type.
#[derive(Elicit)]
struct Form {
    #[elicit(maximum = 9007199254740992)]
    big: i64,
    #[elicit(minimum = -9007199254740992, default = 9007199254740993)]
    small: i64,
    #[elicit(maximum = 9007199254740991, default = 9007199254740991)]
    edge: u64,
}

fn main() {}
