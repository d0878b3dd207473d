use elicit::Elicit;

#[derive(Elicit)]
#[elicit(min_length = 1)]
struct Form {
    #[elicit(rename_all = "camelCase")]
    name: String,
}

fn main() {}
