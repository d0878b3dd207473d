use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(format = "email", default = "not an address")]
    email: String,
    #[elicit(format = "date", default = "2023-02-29")]
    day: String,
}

fn main() {}
