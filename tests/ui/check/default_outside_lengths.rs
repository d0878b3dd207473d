use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(min_length = 3, default = "😀😀")]
    short: String,
    #[elicit(max_length = 2, default = "abc")]
    long: String,
}

fn main() {}
