use elicit::Elicit;

#[derive(Elicit)]
#[elicit(title = 5)]
struct Form {
    #[elicit(min_length = "3", description = true, pattern = 1)]
    name: String,
    #[elicit(minimum = "0", default = some_value)]
    age: u8,
}

fn main() {}
