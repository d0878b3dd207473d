use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(min_length = -1, max_length = 5000000000)]
    name: String,
    #[elicit(minimum = 9223372036854775808, min_items = -2)]
    age: u64,
    #[elicit(maximum = 1e400)]
    ratio: f64,
}

fn main() {}
