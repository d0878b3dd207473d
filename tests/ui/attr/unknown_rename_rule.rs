use elicit::Elicit;

#[derive(Elicit)]
#[elicit(rename_all = "camelcase")]
struct Form {
    user_name: String,
}

fn main() {}
